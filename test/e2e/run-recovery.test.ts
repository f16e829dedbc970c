import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf, udidsOf as udids } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// How the daemon recovers: adb server restarts, a cloud that is down. A
// cloud that answers failedDevices and reports asked for while one is in
// flight are the report loop's decisions, shown on virtual time in
// test/agent/cloud-refusals.test.ts.

const bed = new DaemonBed();
const { adb, cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const plug = (serial: string) => bed.plug(serial);
const start = (extra: Record<string, string> = {}) => bed.run({ DEVICE_AGENT_SCHEDULE: '0 0 * * *', ...extra });

describe('run: recovery', () => {
  it('reconnects after the adb server is killed and restarted, with no ghost devices', async () => {
    await plug('ADBR0001');
    const gone = await plug('ADBR0002');
    const a = start();
    await cloud.waitForPut((r) => udids(r).join() === 'ADBR0001,ADBR0002');

    await adb.kill();
    await a.waitForLog((l) => String(l.msg).includes('adb device tracking ended'));
    // While adb is down, one device goes away for good.
    adb.connected.delete(gone.port);
    await sleep(500);
    await adb.restart({ reconnect: true });
    await a.waitForLog((l) => String(l.msg).includes('adb server is reachable again'), 20_000);

    // Once adb's list has settled, 10 s after the agent reconnects to it.
    const after = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'ADBR0002' && d.status === 'UNPLUGGED'), 35_000);
    expect(udids(after)).toContain('ADBR0001');
    // A new plug after the restart is seen: tracking really resumed.
    await plug('ADBR0003');
    const later = await cloud.waitForPut((r) => udids(r).includes('ADBR0003'), 10_000); // within the report budget's wait after the UNPLUGGED report
    expect(udids(later)).toEqual(['ADBR0001', 'ADBR0003']);
    expect(a.child.exitCode).toBeNull();
  }, 120_000);

  it('keeps collecting while the cloud is down and sends the current inventory when it is back', async () => {
    await plug('DOWN0001');
    cloud.failNext({ status: 503, times: 1000 });
    const a = start({ DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '2' });
    await a.waitForLog((l) => String(l.msg).includes('report not delivered'), 30_000);
    await plug('DOWN0002');
    cloud.resetFaults();
    const back = await cloud.waitForPut((r) => r.answer?.status === 200 && udids(r).includes('DOWN0002'), 40_000);
    expect(udids(back)).toEqual(['DOWN0001', 'DOWN0002']);
    expect(a.stdout + a.stderr).not.toContain(cloud.apiKey);
  });
});
