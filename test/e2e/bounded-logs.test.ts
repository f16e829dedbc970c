import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed, sleep } from './daemon-bed.js';

// Issue 23 item 4: whatever the cloud answers, the daemon's log stays
// readable. Each case runs the agent as its own process against the cloud
// double and counts its lines.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const udids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ udid: `${prefix}${String(i).padStart(5, '0')}`, message: 'device belongs to another node' }));

describe('a cloud whose failedDevices names 5,000 udids the report did not carry', () => {
  it('the same 5,000 on every report: one line naming a few of them and the count, not one line per udid', async () => {
    await bed.plug('FLOOD001');
    cloud.answerFailedDevices(udids('ELSEWHERE', 5_000));
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *' });
    await cloud.waitForPut(() => true, 20_000);
    const t0 = Date.now();
    await sleep(12_000);
    const reports = cloud.putRequests().filter((r) => r.receivedAt >= t0).length;
    expect(reports).toBeGreaterThanOrEqual(4);
    const warnings = a.logs().filter((l) => l.level === 'warn');
    const about = warnings.filter((l) => String(l.msg).includes('did not carry'));
    expect(about).toHaveLength(1);
    expect(String(about[0]?.msg)).toMatch(/named 5000 devices in failedDevices that the report did not carry \(ELSEWHERE00000, ELSEWHERE00001, .* and 4990 more\)/);
    expect(warnings.length).toBeLessThanOrEqual(3);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);

  it('5,000 new ones on every report: at most 11 such lines a minute, the rest counted in a summary', async () => {
    await bed.plug('FLOOD002');
    let round = 0;
    cloud.answerFailedDevices(() => udids(`R${round++}X`, 5_000));
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '* * * * * *' });
    await cloud.waitForPut(() => true, 20_000);
    await sleep(15_000);
    const puts = cloud.putRequests().length;
    expect(puts).toBeGreaterThanOrEqual(12);
    const about = a.logs().filter((l) => String(l.msg).includes('did not carry'));
    expect(about.length).toBeLessThanOrEqual(10);
    expect(a.logs().length).toBeLessThan(puts + 40);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});
