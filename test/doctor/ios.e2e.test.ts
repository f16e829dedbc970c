import { readinessDoctor } from '../../src/features/readiness/doctor.js';
import { parseReadinessChecks } from '../../src/features/readiness/settings.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIos } from '../../src/doctor/ios.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';

const settings = { ios: undefined, iosTimeoutSeconds: 1, probeConcurrency: 4, usbmuxdSocketAddress: undefined };

describe('doctor: iOS', () => {
  const mux = new SimUsbmuxd();
  beforeAll(() => mux.start());
  afterAll(() => mux.dispose());

  it('lists each iPhone with its pairing state', async () => {
    const paired = mux.plug({ profile: 'iphone-13-ios16' });
    const untrusted = mux.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: 'DOC-UNTRUSTED' });
    const hung = mux.plug({ profile: 'iphone-6s-ios9', state: 'hang', udid: 'DOC-HUNG' });
    const items = await checkIos(settings, mux.env);
    expect(items[0]).toMatchObject({ status: 'ok', finding: expect.stringContaining('3 iPhone(s)') });
    const about = (udid: string) => items.find((i) => i.finding.includes(udid));
    expect(about(paired.udid)).toMatchObject({ status: 'ok', finding: expect.stringContaining('iPhone 13, iOS 16.3.1): paired') });
    expect(about(untrusted.udid)).toMatchObject({
      status: 'warn',
      finding: expect.stringContaining('not paired'),
      advice: expect.stringContaining('idevicepair pair'),
    });
    expect(about(hung.udid)).toMatchObject({ status: 'warn', finding: expect.stringContaining('does not answer') });
    expect(untrusted.log.map((l) => l.request)).not.toContain('Pair');
    for (const p of [paired, untrusted, hung]) mux.unplug(p);
  });

  it("with the lab's baseline: an iPhone with Developer Mode off is named not ready with the fix; iOS 9 (no Developer Mode) is not", async () => {
    const off = mux.plug({ profile: 'iphone-15-ios17', developerMode: false });
    // Found locked behind a passcode: every check read (Developer Mode is not an iOS 9 phone's).
    const old = mux.plug({ profile: 'iphone-6s-ios9', passcode: 'locked' });
    // Unlocked: lockdown does not tell whether it has a passcode.
    const unlocked = mux.plug({ profile: 'iphone-13-ios16', passcode: 'none' });
    try {
      const items = await checkIos(settings, mux.env, readinessDoctor(parseReadinessChecks(['paired', 'developerMode', 'passcode', 'osVersion'])).facts);
      expect(items.filter((i) => i.id === 'phone.readiness' && i.status === 'ok')).toEqual([
        {
          id: 'phone.readiness',
          phone: old.udid,
          status: 'ok',
          finding: `iPhone ${old.udid}: ready for automation against the lab's baseline (readiness.checks)`,
        },
      ]);
      expect(items).toContainEqual({ id: 'phone.readiness', phone: unlocked.udid, status: 'unread', finding: 'passcode not read, never called ready' });
      const warned = items.filter((i) => i.finding.includes('not ready for automation'));
      expect(warned).toEqual([
        {
          id: 'phone.readiness',
          phone: off.udid,
          status: 'warn',
          finding: `iPhone ${off.udid}: not ready for automation: Developer Mode is off (DeveloperModeStatus), expected on`,
          advice: expect.stringContaining('Developer Mode: Settings > Privacy & Security > Developer Mode on'),
        },
      ]);
      expect(old.sessions).toBe(1);
    } finally {
      for (const p of [off, old, unlocked]) mux.unplug(p);
    }
  });

  it('no socket is fine unless iPhones were asked for, a bad address fails, ios off says so', async () => {
    expect(await checkIos(settings, { USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd' })).toEqual([
      { id: 'usbmuxd', status: 'ok', finding: expect.stringContaining('no usbmuxd socket') },
    ]);
    // Without usbmuxd nothing was looked at: the line says so, and claims no absence of iPhones it could not see.
    const [none] = await checkIos(settings, { USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd' });
    expect(none!.finding).not.toMatch(/no iPhones on this host/);
    expect(none!.finding).toMatch(/iPhones are not looked for on this host \(an iPhone plugged here is not seen; install usbmuxd to report iPhones\)/);
    expect(await checkIos({ ...settings, ios: true }, { USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd' })).toEqual([
      {
        id: 'usbmuxd',
        status: 'warn',
        finding: expect.stringContaining('asked for (ios: true), but there is no usbmuxd socket'),
        advice: expect.stringContaining('install and start usbmuxd'),
      },
    ]);
    expect((await checkIos(settings, { USBMUXD_SOCKET_ADDRESS: '/var/run/usbmuxd' }))[0]?.status).toBe('fail');
    expect((await checkIos({ ...settings, ios: false }, mux.env))[0]?.finding).toMatch(/off/);
  });

  it('a usbmuxd that accepts but never answers fails within the deadline', async () => {
    const net = await import('node:net');
    const server = net.createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    const t0 = Date.now();
    const items = await checkIos(settings, { USBMUXD_SOCKET_ADDRESS: `127.0.0.1:${port}` });
    // Its deadline, not a hang: 1.0 s alone at load 12, so 3 times that.
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(items[0]).toMatchObject({ status: 'fail', finding: expect.stringContaining('does not answer') });
    server.close();
  });
});
