import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf, reported } from '../support/reports.js';

// A kicked network phone does not vanish (issue 34, finding 3): a phone the
// agent connects over TCP (networkDevices), inventoried and identified, then
// wedged for good, through the real adb server and the cloud double. Its
// kick makes adb forget it; the agent connects it again and its inventory
// fails before it says who it is on the new connection. It stays in every
// report with its last inventory, a message naming the kick and its network
// link, and, once recovery has spent its kicks, that a person is needed.

const bed = new DaemonBed();
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('a wedged network phone that recovery kicked', () => {
  it('stays reported, with its last inventory, the culprit and, when recovery gives up, that a person is needed', async () => {
    const phone = await bed.networkPhone('KICKED01');
    const agent = bed.run({
      DEVICE_AGENT_NETWORK_DEVICES: phone.serial,
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '2',
      DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
      DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_MAX_KICKS_PER_HOUR: '1',
    });
    await cloud.waitForPut(
      reported('KICKED01', (d) => d.status === 'AVAILABLE' && d.modelName === 'Pixel 8 Pro'),
      20_000,
    );
    phone.wedge(true);
    await agent.waitForLog((l) => l.serial === phone.serial && /kicking the adb transport/.test(String(l.msg)), 60_000);
    const kickedAt = Date.now();
    const gaveUp = await cloud.waitForPut(
      reported('KICKED01', (d) => /needs a person/.test(d.message ?? '')),
      60_000,
    );
    const last = devicesOf(gaveUp).find((d) => d.udid === 'KICKED01')!;
    expect(last).toMatchObject({ status: 'UNAVAILABLE', modelName: 'Pixel 8 Pro' });
    expect(last.message).toMatch(
      /reported with its last inventory, of .*: recovery kicked its adb transport at .*network link \(adb over TCP to 127\.0\.0\.1:\d+\)/,
    );
    expect(last.message).toMatch(/needs a person: its transport was kicked 1 times this hour and it is still wedged/);
    // Never gone in between: in every report after the kick, never UNPLUGGED.
    const after = cloud.putRequests().filter((r) => r.receivedAt > kickedAt);
    expect(after.length).toBeGreaterThan(1);
    for (const r of after) expect(devicesOf(r).find((d) => d.udid === 'KICKED01')?.status).toBe('UNAVAILABLE');
  }, 150_000);
});
