// iPhone readiness end to end: the simulated usbmuxd with iPhones whose
// lockdown says Developer Mode is off, or has no Developer Mode (iOS 9), or
// no passcode, and one that does not trust the host; the compiled CLI in its
// own process under `once --dry-run` and `list --json`. The one with
// Developer Mode off, and the untrusted one, are reported not ready with the
// cause and the fix, in their message and in list's READY column, Appium off
// for them; the others are not called not ready for what lockdown cannot
// tell, nor ready: their READY names what is unread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdbServer } from '../sim/adb-server.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';
import { baseEnv, runAgent } from './agent-process.js';

const adb = new AdbServer();
const mux = new SimUsbmuxd();

beforeAll(async () => {
  await adb.start();
  await mux.start();
});

afterAll(async () => {
  await adb.stop();
  await mux.dispose();
});

const env = () => baseEnv({ ...adb.env, ...mux.env, DEVICE_AGENT_NODE_ID: 'ios-readiness' });

describe('iPhone readiness', () => {
  it('an iPhone with Developer Mode off, or one that does not trust the host, is not ready, with the cause and the fix, in its message and in list, Appium off for it', async () => {
    const off = mux.plug({ profile: 'iphone-15-ios17', developerMode: false });
    const on = mux.plug({ profile: 'iphone-13-ios16', passcode: 'none' });
    const old = mux.plug({ profile: 'iphone-6s-ios9' });
    const untrusted = mux.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: '00008120-0000UNTRUSTED01' });
    try {
      const once = await runAgent(['once', '--dry-run'], env());
      expect(once.code, once.stderr).toBe(0);
      const devices = new Map((JSON.parse(once.stdout) as { devices: Array<Record<string, unknown>> }).devices.map((d) => [d.udid as string, d]));
      expect(devices.get(off.udid)).toMatchObject({
        status: 'AVAILABLE',
        message: expect.stringContaining(
          "not ready for automation (1 of the lab's checks failed): Developer Mode is off (DeveloperModeStatus), expected on: Settings > Privacy & Security > Developer Mode on",
        ),
        support: { appiumDisabled: true },
      });
      // Not paired: the source's own message, not ready on paired, and Appium off for it.
      expect(devices.get(untrusted.udid)).toMatchObject({
        status: 'UNAVAILABLE',
        message: expect.stringContaining('paired and trusted is off (pair record and StartSession), expected on'),
        support: { appiumDisabled: true },
      });
      // Developer Mode on, no passcode (lockdown cannot tell none from unlocked): not failed, no message.
      expect(devices.get(on.udid)).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: false } });
      expect(devices.get(on.udid)).not.toHaveProperty('message');
      // iOS 9 has no amfi domain: lockdown answers MissingValue, the check is unknown, the phone reported as ever.
      expect(devices.get(old.udid)).toMatchObject({ status: 'AVAILABLE', platformVersion: '9.3.5' });
      expect(devices.get(old.udid)).not.toHaveProperty('message');
      // Developer Mode read once, in the inventory's one session per phone.
      expect(off.log.filter((l) => l.domain === 'com.apple.security.mac.amfi')).toHaveLength(1);
      expect(off.sessions).toBe(1);

      const list = await runAgent(['list', '--json'], env());
      expect(list.code, list.stderr).toBe(0);
      const rows = new Map((JSON.parse(list.stdout) as Array<{ udid: string; features?: Record<string, unknown> }>).map((r) => [r.udid, r]));
      expect(rows.get(off.udid)?.features).toMatchObject({ readiness: 'not ready: developerMode' });
      // Unlocked: lockdown does not tell whether it has a passcode, which the default baseline does not check: ready.
      expect(rows.get(on.udid)?.features).toMatchObject({ readiness: 'ready' });
      expect(rows.get(untrusted.udid)?.features).toMatchObject({ readiness: 'not ready: paired' });
      const table = await runAgent(['list'], env());
      expect(table.stdout).toMatch(/READY/);
      expect(table.stdout).toMatch(new RegExp(`^${off.udid}.*not ready: developerMode`, 'm'));
      expect(table.stdout).toMatch(new RegExp(`^${untrusted.udid}.*not ready: paired`, 'm'));
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
    }
  });
});
