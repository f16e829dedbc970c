import { describe, expect, it } from 'vitest';
import { hubDaemonBed, powerCycleEnv } from './hub-daemon-bed.js';
import { devicesOf, reported } from '../support/reports.js';

// Android 16's Advanced Protection, in the running daemon, through the real
// adb server, the cloud double and the stand-in uhubctl: a locked phone under
// it takes a new USB connection as charge-only, so recovery never
// power-cycles its hub port. The phone (the Pixel profile, SDK 36) keeps
// `advanced_protection_mode` 1 in its secure settings, which the slow tier
// reads; stuck offline past its reconnects, where the same phone without it
// has its port cycled (test/e2e/offline-power-cycle.test.ts), it is not: a
// person is asked for, with why, and the port is never switched.

const { bed, hub } = hubDaemonBed();
const { cloud } = bed;
const OFFLINE_COOLDOWN_S = 10;

describe('a phone under Advanced Protection that offline reconnects do not bring back', () => {
  it('has its port left alone, and says why and that a person is needed; never unplugged', async () => {
    const phone = await bed.networkPhone('APROT01', { settings: { 'secure/advanced_protection_mode': '1' } });
    hub.attach('1-1.4', 3, phone);
    const agent = bed.run(powerCycleEnv(hub, phone.serial, 'APROT01', { DEVICE_AGENT_RECOVERY_OFFLINE_COOLDOWN_SECONDS: String(OFFLINE_COOLDOWN_S) }));
    await cloud.waitForPut(
      reported('APROT01', (d) => d.status === 'AVAILABLE'),
      30_000,
    );
    const from = hub.switches.length;
    // adbd stuck before its handshake: adb lists it offline for good.
    phone.setMode('offline');
    phone.disconnect();
    const stuckAt = Date.now();
    await bed.adb.waitForState(phone.serial, 'offline', 10_000);

    // A network phone offline drops off adb's list at each reconnect, so its message is mostly its remembered one: the
    // call for a person is the log's line (and the message whenever adb lists it then).
    const person = await agent.waitForLog(
      (l) =>
        l.serial === phone.serial &&
        /needs a person: .*under Advanced Protection, where a locked phone takes a new USB connection as charge-only/.test(String(l.msg)),
      120_000,
    );
    expect(String(person.msg)).toMatch(/hub 1-1\.4 port 3 is not power-cycled.*a person must unlock it and replug it/);
    // The call for a person comes when a cycle is due (two reconnects and two cooldowns): the port was never switched.
    expect(hub.switches.slice(from)).toEqual([]);
    expect(agent.logs().some((l) => /power-cycling hub/.test(String(l.msg)))).toBe(false);
    for (const r of cloud.putRequests().filter((r) => r.receivedAt > stuckAt))
      expect(devicesOf(r).find((d) => d.udid === 'APROT01')?.status).not.toBe('UNPLUGGED');
  }, 300_000);
});
