// The diagnostics relay through the iOS client against the simulator: the
// recorded iPhone 14 Pro (iOS 26) and iOS 12 GasGauge answers
// (test/features/wear/fixtures/SOURCES.md), and a relay that refuses, answers
// another status or never answers: the inventory is read either way, and
// what the relay did not give is unread with why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { decodePlist, type Dict } from '../../../src/platforms/ios/framing.js';
import { probeIphone } from '../../../src/platforms/ios/probe.js';
import type { MuxDevice } from '../../../src/platforms/ios/usbmuxd-client.js';
import { SimUsbmuxd, type SimPhone } from '../../sim-ios/usbmuxd.js';
import { fixture } from '../../features/wear/section.js';

const mux = (p: SimPhone): MuxDevice => ({ deviceId: p.deviceId, udid: p.udid });
const recorded = (name: string): Dict => decodePlist(Buffer.from(fixture(name))) as Dict;

describe('the diagnostics relay, read with the root domain', () => {
  const sim = new SimUsbmuxd();
  let address: ReturnType<typeof parseUsbmuxdAddress>;
  beforeAll(async () => {
    await sim.start();
    address = parseUsbmuxdAddress(sim.address);
  });
  afterAll(() => sim.dispose());

  it("reads an iPhone 14 Pro's battery wear over TLS in the inventory's session, then ends it", async () => {
    const phone = sim.plug({
      profile: 'iphone-15-ios17',
      udid: 'RELAY-1',
      relay: { ioregistry: recorded('iphone14pro-ios26-ioregistry.plist').IORegistry as Dict },
    });
    const r = await probeIphone(address, mux(phone), 3000);
    expect(r).toMatchObject({ kind: 'ok', values: { wear: { battery: { source: 'ioregistry', cycleCount: 950, healthPercent: 87 }, unread: [] } } });
    expect(phone.log.map((l) => l.request)).toEqual(expect.arrayContaining(['StartService', 'relay:IORegistry', 'relay:Goodbye']));
    expect(phone.log.at(-1)?.request).toBe('StopSession');
    expect(phone.sessions).toBe(1);
  });

  it('an entry with no figure: the GasGauge, its cycles only (its 100 is a percent)', async () => {
    const phone = sim.plug({
      profile: 'iphone-13-ios16',
      udid: 'RELAY-2',
      relay: { gasGauge: recorded('iphone-ios12-gasgauge-issue1068.plist').GasGauge as Dict },
    });
    const r = await probeIphone(address, mux(phone), 3000);
    expect(r).toMatchObject({ kind: 'ok', values: { wear: { battery: { source: 'gasgauge', cycleCount: 425 } } } });
    expect(r.kind === 'ok' && r.values.wear?.battery).not.toHaveProperty('healthPercent');
  });

  it('a relay lockdown will not start, one that answers another status, one that tells nothing: unread with why; the inventory stands', async () => {
    const refused = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-3', relay: { fault: 'refused' } });
    const status = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-4', relay: { fault: 'status' } });
    const empty = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-5', relay: {} });
    const [a, b, c] = await Promise.all([refused, status, empty].map((p) => probeIphone(address, mux(p), 3000)));
    expect(a).toMatchObject({
      kind: 'ok',
      values: { wear: { unread: [{ what: 'diagnostics relay', why: 'refused', detail: 'lockdown answered InvalidService' }] } },
    });
    expect(b).toMatchObject({
      kind: 'ok',
      values: { wear: { unread: [{ what: 'diagnostics relay', why: 'refused', detail: 'it answered UnknownRequest' }] } },
    });
    expect(c).toMatchObject({ kind: 'ok', values: { wear: { unread: [{ what: 'diagnostics relay', why: 'garbage' }] } } });
    for (const r of [a, b, c]) expect(r?.kind === 'ok' && r.values.battery?.BatteryCurrentCapacity).toBeDefined();
    expect(refused.log.at(-1)?.request).toBe('StopSession');
  });

  it('a relay that never answers costs one step deadline; the inventory stands', async () => {
    const phone = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-6', relay: { fault: 'hang' } });
    const r = await probeIphone(address, mux(phone), 500);
    expect(r).toMatchObject({ kind: 'ok', values: { wear: { unread: [{ what: 'diagnostics relay', why: 'refused' }] } } });
    expect(phone.log.at(-1)?.request).toBe('StopSession');
  });

  it('a relay connection that closes on its first request: unread, refused; the session and the inventory stand', async () => {
    const phone = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-8', relay: { fault: 'close' } });
    const r = await probeIphone(address, mux(phone), 3000);
    expect(r).toMatchObject({ kind: 'ok', values: { wear: { unread: [{ what: 'diagnostics relay', why: 'refused' }] } } });
    expect(phone.log.at(-1)?.request).toBe('StopSession');
  });

  it('between two slow reads (the root domain known) the relay is not asked', async () => {
    const phone = sim.plug({ profile: 'iphone-13-ios16', udid: 'RELAY-7', relay: { ioregistry: {} } });
    const first = await probeIphone(address, mux(phone), 3000);
    const root = first.kind === 'ok' ? first.values.root : {};
    phone.log.length = 0;
    const second = await probeIphone(address, mux(phone), 3000, root);
    expect(second.kind === 'ok' && second.values.wear).toBeUndefined();
    expect(phone.log.map((l) => l.request)).not.toContain('StartService');
  });
});
