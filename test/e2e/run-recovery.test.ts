import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf, udidsOf as udids } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// How the daemon recovers: adb server restarts, a cloud that is down or
// answers failedDevices, reports asked for while one is in flight.

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

    const after = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'ADBR0002' && d.status === 'UNPLUGGED'), 15_000);
    expect(udids(after)).toContain('ADBR0001');
    // A new plug after the restart is seen: tracking really resumed.
    await plug('ADBR0003');
    const later = await cloud.waitForPut((r) => udids(r).includes('ADBR0003'), 10_000); // within the 5 s report gap after the UNPLUGGED report
    expect(udids(later)).toEqual(['ADBR0001', 'ADBR0003']);
    expect(a.child.exitCode).toBeNull();
  });

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

  it('logs a failed device once per distinct message and probes it afresh before resending', async () => {
    const device = await plug('FAIL0001');
    cloud.failDevices([{ udid: 'FAIL0001', message: 'missing required capability: battery' }]);
    const a = start({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *' });
    await cloud.waitForPut((r) => udids(r).includes('FAIL0001'));
    const sessionsAfterFirst = device.shellSessions;
    await sleep(6500);
    const reports = cloud.putRequests().length;
    expect(reports).toBeGreaterThanOrEqual(3);
    const warnings = a.logs().filter((l) => l.udid === 'FAIL0001' && l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toContain('missing required capability: battery');
    // Every resend carried a fresh probe of the device.
    expect(device.shellSessions).toBeGreaterThan(sessionsAfterFirst);

    cloud.failDevices([{ udid: 'FAIL0001', message: 'quota exceeded' }]);
    await a.waitForLog((l) => l.udid === 'FAIL0001' && String(l.msg).includes('quota exceeded'), 10_000);
    cloud.clearFailedDevices();
    await a.waitForLog((l) => l.udid === 'FAIL0001' && String(l.msg).includes('stored device FAIL0001 again'), 10_000);
  });

  it('never has two reports in flight and coalesces requests into one follow-up', async () => {
    await plug('COAL0001');
    cloud.setDelay(1500);
    const a = start({ DEVICE_AGENT_SCHEDULE: '* * * * * *' });
    await sleep(7000);
    const puts = cloud.putRequests();
    // One request per second was asked for; each takes 1.5 s, so at most
    // one follows another, never overlapping.
    expect(puts.length).toBeGreaterThanOrEqual(2);
    expect(puts.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < puts.length; i++) {
      expect(puts[i]!.receivedAt).toBeGreaterThanOrEqual(puts[i - 1]!.receivedAt + 1500);
    }
    expect(a.child.exitCode).toBeNull();
  });
});
