// Whether the developer disk image is mounted, read over plain USB lockdown
// against the simulated usbmuxd: StartService of mobile_image_mounter in the
// inventory's session, its own TLS connection, LookupImage and, after an
// empty list, CopyDevices (src/platforms/ios/developer-image.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { probeIphone } from '../../../src/platforms/ios/probe.js';
import type { MuxDevice } from '../../../src/platforms/ios/usbmuxd-client.js';
import { decodePlist, type Dict } from '../../../src/platforms/ios/framing.js';
import { fixture } from '../../features/wear/section.js';
import { DIAGNOSTICS_RELAY, IMAGE_MOUNTER } from '../../sim-ios/lockdownd.js';
import { SimUsbmuxd, type SimPhone } from '../../sim-ios/usbmuxd.js';

const mux = (p: SimPhone): MuxDevice => ({ deviceId: p.deviceId, udid: p.udid });

describe('the developer disk image, read over lockdown', () => {
  const sim = new SimUsbmuxd();
  let address: ReturnType<typeof parseUsbmuxdAddress>;
  beforeAll(async () => {
    await sim.start();
    address = parseUsbmuxdAddress(sim.address);
  });
  afterAll(() => sim.dispose());

  const read = async (spec: Parameters<SimUsbmuxd['plug']>[0]) => {
    const phone = sim.plug(spec);
    try {
      const r = await probeIphone(address, mux(phone), 3000, undefined, { readImage: true });
      return { r, phone };
    } finally {
      sim.unplug(phone);
    }
  };

  it('mounted: the personalized image on iOS 17, in the same session, the inventory unchanged', async () => {
    const { r, phone } = await read({ profile: 'iphone-15-ios17', developerImage: 'mounted' });
    expect(r).toMatchObject({ kind: 'ok', values: { developerImage: 'mounted', root: { ProductVersion: '17.4.1' } } });
    expect(phone.log.filter((l) => l.request === 'LookupImage')).toEqual([{ request: 'LookupImage', key: 'Personalized' }]);
    expect(phone.sessions).toBe(1);
    expect(phone.log.at(-1)?.request).toBe('StopSession');
  });

  it("with the relay's wear in the same session: the image first, then the battery, one session ended once", async () => {
    for (const developerImage of ['mounted', 'error'] as const) {
      const { r, phone } = await read({
        profile: 'iphone-15-ios17',
        developerImage,
        relay: { ioregistry: (decodePlist(Buffer.from(fixture('iphone14pro-ios26-ioregistry.plist'))) as Dict).IORegistry as Dict },
      });
      expect(r).toMatchObject({ kind: 'ok', values: { wear: { battery: { source: 'ioregistry', cycleCount: 950 }, unread: [] } } });
      if (r.kind === 'ok') expect(r.values.developerImage).toBe(developerImage === 'mounted' ? 'mounted' : undefined);
      const started = phone.log.filter((l) => l.request === 'StartService').map((l) => l.service);
      expect(started).toEqual([IMAGE_MOUNTER, DIAGNOSTICS_RELAY]);
      expect(phone.sessions).toBe(1);
      expect(phone.log.at(-1)?.request).toBe('StopSession');
    }
  });

  it('not mounted: an empty list, and CopyDevices lists none', async () => {
    const { r, phone } = await read({ profile: 'iphone-15-ios17', developerImage: 'not-mounted' });
    expect(r).toMatchObject({ kind: 'ok', values: { developerImage: 'not-mounted' } });
    expect(phone.log.map((l) => l.request)).toContain('CopyDevices');
  });

  it('mounted but not listed by LookupImage (pymobiledevice3 #1815): CopyDevices says mounted', async () => {
    const { r } = await read({ profile: 'iphone-15-ios17', developerImage: 'empty-list' });
    expect(r).toMatchObject({ kind: 'ok', values: { developerImage: 'mounted' } });
  });

  it('an error answer, or no such service: unknown (left out), the inventory still whole', async () => {
    for (const developerImage of ['error', 'none'] as const) {
      const { r } = await read({ profile: 'iphone-15-ios17', developerImage });
      expect(r.kind).toBe('ok');
      if (r.kind === 'ok') {
        expect(r.values).not.toHaveProperty('developerImage');
        expect(r.values.battery).toBeDefined();
      }
    }
  });

  // The slow read starts the diagnostics relay too (wear): only the image mounter's StartService counts here.
  const mounterStarts = (p: SimPhone) => p.log.filter((l) => l.request === 'StartService' && l.service === IMAGE_MOUNTER);

  it('before iOS 17, and when not asked: no StartService of the image mounter', async () => {
    const { r, phone } = await read({ profile: 'iphone-13-ios16', developerImage: 'mounted' });
    expect(r).toMatchObject({ kind: 'ok' });
    expect(mounterStarts(phone)).toEqual([]);
    const again = sim.plug({ profile: 'iphone-15-ios17' });
    await probeIphone(address, mux(again), 3000);
    expect(mounterStarts(again)).toEqual([]);
    sim.unplug(again);
  });
});
