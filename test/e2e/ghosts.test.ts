import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runAgent } from './agent-process.js';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// No ghost after a restart: the agent keeps the device set it last reported
// in its state directory, and a device that did not come back while it was
// down (stopped, crashed, upgraded) is reported UNPLUGGED once.

const bed = new DaemonBed('pixel-8-pro');
const { adb, cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const statusOf = (r: Parameters<typeof devicesOf>[0]) =>
  devicesOf(r)
    .map((d) => `${d.udid}:${d.status}`)
    .sort();

describe('no ghost devices after a restart', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`a device unplugged while the agent was down (${signal}) is reported UNPLUGGED once at the next start`, async () => {
      await bed.plug('GHOST001');
      const gone = await bed.plug('GHOST002');
      await bed.plug('GHOST003');
      // At debug, every delivered report is a line: the test waits for the one that carried the unplug.
      const extra = { DEVICE_AGENT_STATE_DIR: `/tmp/da-ghost-state-${signal}-${process.pid}`, DEVICE_AGENT_LOG_LEVEL: 'debug' };
      const first = bed.run(extra);
      await cloud.waitForPut((r) => devicesOf(r).length === 3, 40_000);
      await first.stop(signal);
      await gone.unplug();
      await adb.disconnect(gone.port);
      const t0 = Date.now();
      const second = bed.run(extra);
      // adb's list counts as complete 10 s after the agent connects to it (USB enumeration): 12 to 15 s alone
      // at load 24, and CI's load once took it past 20 s.
      const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).some((d) => d.status === 'UNPLUGGED'), 45_000);
      // The others are in it, never UNPLUGGED: AVAILABLE, or UNAVAILABLE while their first inventory of the new run is still being read (issue 42).
      expect(statusOf(put).map((s) => s.replace(':UNAVAILABLE', ':AVAILABLE'))).toEqual(['GHOST001:AVAILABLE', 'GHOST002:UNPLUGGED', 'GHOST003:AVAILABLE']);
      // UNPLUGGED until the agent hears the cloud took it, and never after: a report whose answer did not reach the
      // agent in time (a loaded machine) is sent again whole, the unplug in it, and that is not a second unplug.
      await second.waitForLog((l) => l.msg === 'report delivered' && Number(l.unplugged) >= 1, 30_000);
      const t1 = Date.now();
      const unplugged = (from: number, to = Infinity) =>
        cloud
          .putRequests()
          .filter((r) => r.receivedAt >= from && r.receivedAt < to)
          .flatMap(statusOf)
          .filter((x) => x.endsWith('UNPLUGGED'));
      expect(new Set(unplugged(t0, t1))).toEqual(new Set(['GHOST002:UNPLUGGED']));
      second.child.kill('SIGHUP');
      // A full report: it waits for every inventory (the probe timeout at most), and for a token of the report budget.
      const next = await cloud.waitForPut((r) => r.receivedAt >= t1, 30_000);
      expect(statusOf(next)).toEqual(['GHOST001:AVAILABLE', 'GHOST003:AVAILABLE']);
      expect(unplugged(t1)).toEqual([]);
    }, 150_000);
  }

  it('marks nobody gone while the adb server is not up yet at start', async () => {
    const a = await bed.plug('BOOT0001');
    const b = await bed.plug('BOOT0002');
    const extra = { DEVICE_AGENT_STATE_DIR: `/tmp/da-ghost-state-boot-${process.pid}` };
    const first = bed.run(extra);
    // The first report with both phones: within 40 s, as the three phones' above (a loaded CI once missed 20).
    await cloud.waitForPut((r) => devicesOf(r).length === 2, 40_000);
    await first.stop('SIGTERM');
    await adb.kill();
    const t0 = Date.now();
    const second = bed.run(extra);
    await second.waitForLog((l) => String(l.msg).includes('no adb server at'), 20_000);
    await sleep(2_000);
    for (const r of cloud.putRequests().filter((p) => p.receivedAt >= t0)) expect(statusOf(r).filter((s) => s.endsWith('UNPLUGGED'))).toEqual([]);
    await adb.restart({ reconnect: false });
    await adb.connect(a.port);
    await adb.connect(b.port);
    const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).length === 2, 30_000);
    expect(statusOf(put)).toEqual(['BOOT0001:AVAILABLE', 'BOOT0002:AVAILABLE']);
  }, 120_000);

  it('once reports what an earlier run reported and is gone as UNPLUGGED, and --dry-run shows it', async () => {
    await bed.plug('ONCE0001');
    const gone = await bed.plug('ONCE0002');
    const env = baseEnv({ ...adb.env, DEVICE_AGENT_BASE_URL: cloud.url, DEVICE_AGENT_USERNAME: cloud.username, DEVICE_AGENT_API_KEY: cloud.apiKey });
    expect((await runAgent(['once'], env)).code).toBe(0);
    await gone.unplug();
    await adb.disconnect(gone.port);
    const dry = await runAgent(['once', '--dry-run'], env);
    expect((JSON.parse(dry.stdout) as { devices: Array<{ udid: string; status: string }> }).devices.map((d) => `${d.udid}:${d.status}`).sort()).toEqual([
      'ONCE0001:AVAILABLE',
      'ONCE0002:UNPLUGGED',
    ]);
    const t0 = Date.now();
    expect((await runAgent(['once'], env)).code).toBe(0);
    const put = await cloud.waitForPut((r) => r.receivedAt >= t0, 5_000);
    expect(statusOf(put)).toEqual(['ONCE0001:AVAILABLE', 'ONCE0002:UNPLUGGED']);
    const t1 = Date.now();
    expect((await runAgent(['once'], env)).code).toBe(0);
    expect(statusOf(await cloud.waitForPut((r) => r.receivedAt >= t1, 5_000))).toEqual(['ONCE0001:AVAILABLE']);
  }, 60_000);

  it('an adb server restart: the phone that does not come back is reported UNPLUGGED once, the others never are', async () => {
    const a = await bed.plug('ADBRST01');
    await bed.plug('ADBRST02');
    const agent = bed.run();
    // Within 40 s, as above: CI's clean-clone run at bea819c, on an otherwise quiet machine, had no
    // report with both phones in 20 s, before the restart this test is about.
    await cloud.waitForPut((r) => devicesOf(r).length === 2, 40_000);
    const t0 = Date.now();
    // adb 29 forgets devices reached with `adb connect` when it restarts: one comes back.
    await adb.restart({ reconnect: false });
    await adb.connect(a.port);
    // Once adb's list has settled, 10 s after the agent reconnects to it.
    const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).some((d) => d.status === 'UNPLUGGED'), 40_000);
    // ADBRST01 is back on a new connection. Under load it may be UNAVAILABLE in that report (its
    // inventory on the new connection not answered yet, or past its deadline), as the platform's CI
    // saw at a8a583c, 10 s after the restart: present, never UNPLUGGED, and AVAILABLE after.
    expect(statusOf(put).map((s) => s.replace('ADBRST01:UNAVAILABLE', 'ADBRST01:AVAILABLE'))).toEqual(['ADBRST01:AVAILABLE', 'ADBRST02:UNPLUGGED']);
    // From that report on: an earlier one (before adb's list settled) could have had it AVAILABLE.
    await cloud.waitForPut((r) => cloud.putRequests().indexOf(r) >= cloud.putRequests().indexOf(put) && statusOf(r).includes('ADBRST01:AVAILABLE'), 30_000);
    const after = cloud.putRequests().filter((r) => r.receivedAt >= t0);
    expect(after.flatMap(statusOf).filter((s) => s === 'ADBRST01:UNPLUGGED')).toEqual([]);
    expect(agent.child.exitCode).toBeNull();
  }, 150_000);
});
