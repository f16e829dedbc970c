import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// Issue 33, finding 3: on a loaded host, a start that met an adb server still
// enumerating USB sent `devices: []` with 3 phones plugged, and /healthz
// turned 200 on it. The daemon, a real adb server started afresh with no
// phone yet, and the phones coming 1.5 s after the agent started.

const bed = new DaemonBed('pixel-8-pro');
const { adb, cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('the start report tells the truth', () => {
  it('a fresh adb server that lists the phones late: the start report carries them, and /healthz is not 200 before', async () => {
    const phones = [await bed.plug('LATE0001'), await bed.plug('LATE0002'), await bed.plug('LATE0003')];
    const extra = { DEVICE_AGENT_STATE_DIR: `/tmp/da-start-report-${process.pid}`, DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' };
    const first = bed.run(extra);
    await cloud.waitForPut((r) => devicesOf(r).length === 3, 20_000);
    await first.stop('SIGTERM');
    // The adb server restarted with the agent (an upgrade restarts both units): it lists nothing until USB is enumerated.
    await adb.restart({ reconnect: false });
    const t0 = Date.now();
    const second = bed.run(extra);
    const line = await second.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 15_000);
    const healthz = `http://${String(line.listen)}/healthz`;
    const healthy: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const status = await fetch(healthz).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) healthy.push(Date.now());
        await sleep(100);
      }
    })();
    await sleep(1_500);
    for (const p of phones) await adb.connect(p.port);
    const put = await cloud.waitForPut((r) => r.receivedAt >= t0, 30_000);
    await sleep(500);
    polling = false;
    await poll;
    // The first report after the start calls none of the phones gone. Each it carries is AVAILABLE, or, on a loaded
    // host where its inventory had not answered in the report's wait (3 s for the next answer, docs/design/fleet.md,
    // "start"), UNAVAILABLE saying so (CI at 41d0f1d6: all three); an AVAILABLE report follows as soon as they answer.
    const statuses = (r: typeof put) => devicesOf(r).map((d) => `${d.udid}:${d.status}`);
    expect(statuses(put).length).toBeGreaterThan(0);
    const running = /\bthe (device is back on a new adb connection and its )?inventory (of the device )?has not finished yet\b/;
    const untrue = devicesOf(put).filter(
      (d) => !/^LATE000[123]$/.test(d.udid) || !(d.status === 'AVAILABLE' || (d.status === 'UNAVAILABLE' && running.test(d.message ?? ''))),
    );
    expect(untrue.map((d) => `${d.udid}:${d.status}: ${d.message ?? ''}`)).toEqual([]);
    const all = statuses(put).length === 3 ? put : await cloud.waitForPut((r) => r.receivedAt > put.receivedAt && statuses(r).length === 3, 15_000);
    expect(statuses(all).sort()).toEqual(['LATE0001:AVAILABLE', 'LATE0002:AVAILABLE', 'LATE0003:AVAILABLE']);
    for (const r of cloud.putRequests().filter((p) => p.receivedAt >= t0)) expect(devicesOf(r).length).toBeGreaterThan(0);
    expect(healthy.filter((at) => at < put.receivedAt)).toEqual([]);
    expect(healthy.length).toBeGreaterThan(0);
  }, 90_000);

  // A daemon started before its adb server: the phones the last run reported (the state directory's
  // reported-devices.json) are not told gone while nothing answers at adb's address. They go out UNAVAILABLE
  // with a message naming the server, so the cloud (the double reads a phone left out as offline) keeps them;
  // once adb answers, those it lists are AVAILABLE, and one it does not list is UNPLUGGED once its list is complete.
  it('with no adb server at start, the phones the last run reported are carried UNAVAILABLE naming the server, never left out; once adb answers, the one it does not list goes UNPLUGGED', async () => {
    const phones = [await bed.plug('NOADB001'), await bed.plug('NOADB002'), await bed.plug('NOADB003')];
    const extra = { DEVICE_AGENT_STATE_DIR: `/tmp/da-start-no-adb-${process.pid}`, DEVICE_AGENT_SCHEDULE: '0 0 * * *' };
    const first = bed.run(extra);
    await cloud.waitForPut((r) => devicesOf(r).length === 3, 20_000);
    await first.stop('SIGTERM');
    // The adb server is not running when the agent starts again; NOADB003 is unplugged meanwhile.
    await adb.kill();
    adb.connected.delete(phones[2]!.port);
    const t0 = Date.now();
    const second = bed.run(extra);
    const start = await cloud.waitForPut((r) => r.receivedAt >= t0, 30_000);
    const statuses = (r: typeof start) => devicesOf(r).map((d) => `${d.udid}:${d.status}`);
    expect(statuses(start).sort()).toEqual(['NOADB001:UNAVAILABLE', 'NOADB002:UNAVAILABLE', 'NOADB003:UNAVAILABLE']);
    for (const d of devicesOf(start))
      expect(d.message).toMatch(
        new RegExp(`^the agent has not read its android devices since it started \\(tcp:127\\.0\\.0\\.1:${adb.port}\\b.*no adb server at`),
      );
    expect(
      cloud
        .devices()
        .filter((d) => d.info.udid.startsWith('NOADB'))
        .map((d) => [d.info.udid, d.isOnline])
        .sort(),
    ).toEqual([
      ['NOADB001', true],
      ['NOADB002', true],
      ['NOADB003', true],
    ]);
    // The server comes, and adb reconnects the two phones still plugged.
    await adb.start();
    await adb.connect(phones[0]!.port);
    await adb.connect(phones[1]!.port);
    const gone = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'NOADB003' && d.status === 'UNPLUGGED'), 60_000);
    const back = await cloud.waitForPut(
      (r) => r.receivedAt >= t0 && statuses(r).includes('NOADB001:AVAILABLE') && statuses(r).includes('NOADB002:AVAILABLE'),
      30_000,
    );
    expect(back).toBeDefined();
    // Every report before the UNPLUGGED one carried NOADB003, UNAVAILABLE; none called NOADB001 or NOADB002 gone.
    const since = cloud.putRequests().filter((r) => r.receivedAt >= t0 && r.receivedAt < gone.receivedAt);
    for (const r of since) expect(statuses(r)).toContain('NOADB003:UNAVAILABLE');
    for (const r of cloud.putRequests().filter((p) => p.receivedAt >= t0)) expect(statuses(r).filter((s) => /^NOADB00[12]:UNPLUGGED$/.test(s))).toEqual([]);
    expect(second.child.exitCode).toBeNull();
  }, 150_000);

  // A network phone's udid is its own word: until its first inventory gives it (the properties it gives first), a listed
  // HOST:PORT may be any phone the cloud was told of. On a loaded host that word came after adb's list settled, and
  // the report called the phone at that address gone (CI at f5a17de9: NOADB002 UNPLUGGED while adb listed it). Here its
  // every shell answer is 14 s late, past the settle's 10 s.
  it('a network phone adb lists that has not said who it is when the list settles keeps the phones the cloud holds from being called gone', async () => {
    const [quick, slow] = [await bed.plug('NAMED0001'), await bed.plug('NAMED0002')];
    const extra = { DEVICE_AGENT_STATE_DIR: `/tmp/da-start-unnamed-${process.pid}`, DEVICE_AGENT_SCHEDULE: '0 0 * * *' };
    const first = bed.run(extra);
    await cloud.waitForPut((r) => devicesOf(r).length === 2, 20_000);
    await first.stop('SIGTERM');
    await adb.restart({ reconnect: false });
    slow.options.delayMs = 14_000;
    const t0 = Date.now();
    bed.run(extra);
    await adb.connect(quick.port);
    await adb.connect(slow.port);
    const statuses = (r: ReturnType<typeof cloud.putRequests>[number]) => devicesOf(r).map((d) => `${d.udid}:${d.status}`);
    await cloud.waitForPut((r) => r.receivedAt >= t0 && statuses(r).includes('NAMED0002:AVAILABLE'), 60_000);
    for (const r of cloud.putRequests().filter((p) => p.receivedAt >= t0)) expect(statuses(r)).not.toContain('NAMED0002:UNPLUGGED');
  }, 120_000);

  // The bound of that hold: a phone whose first inventory fails (here a wedged adbd, listed and never answering) names
  // no one, and the phone the cloud holds that adb no longer lists goes UNPLUGGED once the inventory's timeout passes,
  // here 13 s, after the list settled (10 s), as the default 20 s is.
  it('a listed network phone that never says who it is holds no gone phone past its first inventory', async () => {
    const gone = await bed.plug('GONE00001');
    const extra = {
      DEVICE_AGENT_STATE_DIR: `/tmp/da-start-unnamed-bound-${process.pid}`,
      DEVICE_AGENT_SCHEDULE: '0 0 * * *',
      DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '13',
    };
    const first = bed.run(extra);
    await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'GONE00001'), 20_000);
    await first.stop('SIGTERM');
    await adb.restart({ reconnect: false });
    await gone.stop();
    await bed.plug('WEDGED001', { wedged: true });
    const t0 = Date.now();
    bed.run(extra);
    const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).some((d) => d.udid === 'GONE00001' && d.status === 'UNPLUGGED'), 60_000);
    expect(put).toBeDefined();
  }, 120_000);

  // The same bound when that phone's connection drops and comes back faster than its inventory's timeout (a phone on a
  // poor Wi-Fi): each new connection is a new first inventory, and none of them ever fails. The hold is what adb lists
  // at the report's instant, so the report a drop brings finds no unnamed phone and ends it once the list has settled.
  // With a hold that outlived the connection (kept per address), no UNPLUGGED came in 60 s.
  it('a network phone that never says who it is and reconnects faster than its inventory times out holds no gone phone past that timeout', async () => {
    const gone = await bed.plug('GONE00002');
    const extra = {
      DEVICE_AGENT_STATE_DIR: `/tmp/da-start-unnamed-flap-${process.pid}`,
      DEVICE_AGENT_SCHEDULE: '*/5 * * * * *',
      DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '13',
    };
    const first = bed.run(extra);
    await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'GONE00002'), 20_000);
    await first.stop('SIGTERM');
    await adb.restart({ reconnect: false });
    await gone.stop();
    const flapper = await bed.plug('WEDGED002', { wedged: true });
    const t0 = Date.now();
    bed.run(extra);
    // The connection drops after a report and comes back after the next (the one its drop brings), each time long
    // before the inventory's 13 s.
    let flapping = true;
    let seen = t0;
    const next = async () => {
      const put = await cloud.waitForPut((r) => r.receivedAt > seen, 6_000).catch(() => undefined);
      seen = put?.receivedAt ?? seen;
      return flapping;
    };
    const flaps = (async () => {
      while (await next()) {
        await adb.disconnect(flapper.port).catch(() => undefined);
        if (await next()) await adb.connect(flapper.port).catch(() => undefined);
      }
    })();
    try {
      const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).some((d) => d.udid === 'GONE00002' && d.status === 'UNPLUGGED'), 60_000);
      expect(put.receivedAt - t0).toBeLessThan(45_000);
    } finally {
      flapping = false;
      await flaps;
    }
  }, 120_000);
});
