import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { GoIosAgentDouble } from '../sim-ios/tunnel-daemons.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';
import { devicesOf } from '../support/reports.js';
import { baseEnv, daemonEnv, runAgent, startAgent, type AgentProcess } from './agent-process.js';

// iPhones from iOS 17 end to end: the simulated usbmuxd and lockdown (its
// mobile_image_mounter too), an HTTP double of go-ios's tunnel agent that
// answers what its source answers (test/sim-ios/tunnel-daemons.ts), and a
// stand-in `ios` whose `ios version` prints what go-ios's printVersion prints
// (main.go); the compiled CLI in its own process. A phone that reboots while
// the daemon keeps its old tunnel (go-ios #712) is never called ready on it
// once back, and named stale; Developer Mode off or no developer disk image: not
// ready with what to do, never unplugged; an iOS the host's tools do not
// support: "not supported on this host", with what to install.

const adb = new AdbServer();
const mux = new SimUsbmuxd();
const go = new GoIosAgentDouble();
const cloud = new CloudDouble();
let agent: AgentProcess | undefined;

/** A stand-in `ios` printing this version as go-ios's `ios version` does. */
function goIos(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'go-ios-'));
  const bin = join(dir, 'ios');
  writeFileSync(bin, `#!/bin/sh\n[ "$1" = version ] || exit 1\nprintf '%s\\n' '{"version":"${version}"}'\n`);
  chmodSync(bin, 0o755);
  return bin;
}

beforeAll(async () => {
  await adb.start();
  await mux.start();
  await go.start();
  await cloud.start();
});
afterEach(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  agent = undefined;
  for (const p of [...mux.phones.values()]) mux.unplug(p);
  go.tunnels = [];
  cloud.clearRequests();
});
afterAll(async () => {
  await adb.stop();
  await mux.dispose();
  await go.stop();
  await cloud.stop();
});

const iosEnv = (ios: string, daemons = `go-ios=${go.url}`) => ({
  ...mux.env,
  DEVICE_AGENT_IOS_DEVELOPER_TUNNEL_DAEMONS: daemons,
  DEVICE_AGENT_IOS_DEVELOPER_TOOLS: `go-ios=${ios},pymobiledevice3=/nonexistent/pymobiledevice3`,
  DEVICE_AGENT_IOS_DEVELOPER_POLL_SECONDS: '2',
});

type Reported = { udid: string; status: string; message?: string; support?: { appiumDisabled?: boolean } };
const once = async (env: Record<string, string>) => {
  const run = await runAgent(['once', '--dry-run'], baseEnv({ ...adb.env, ...env, DEVICE_AGENT_NODE_ID: 'ios-developer' }));
  expect(run.code, run.stderr).toBe(0);
  return new Map((JSON.parse(run.stdout) as { devices: Reported[] }).devices.map((d) => [d.udid, d]));
};

describe('iPhones from iOS 17 on this host', () => {
  it('a phone that reboots while the daemon keeps its old tunnel (go-ios #712): live from its first report, never called ready on the old tunnel once back, named stale, live again once the daemon makes a new one', async () => {
    const phone = mux.plug({ profile: 'iphone-15-ios17' });
    go.newTunnel(phone.udid);
    agent = startAgent(['run'], daemonEnv(adb.env, cloud, { ...iosEnv(goIos('1.3.2')), DEVICE_AGENT_SCHEDULE: '*/2 * * * * *' }));
    const mine = (r: Parameters<typeof devicesOf>[0]) => devicesOf(r).find((d) => d.udid === phone.udid) as Reported | undefined;
    await cloud.waitForPut((r) => mine(r)?.status === 'AVAILABLE' && mine(r)?.message === undefined && mine(r)?.support?.appiumDisabled === false, 30_000);

    // It reboots (Detached, then Attached under a new DeviceID); the daemon goes on listing the tunnel it made before.
    // From its first report on, live: a tunnel first seen before usbmuxd listed the phone is dated by this connection,
    // not called stale (the first report said "stale" and the next "ready": a verdict that flipped on no fact).
    const before = cloud.putRequests().length;
    expect(cloud.putRequests().filter((r) => /is stale/.test(mine(r)?.message ?? ''))).toEqual([]);
    await mux.reboot(phone, { downMs: 1_000, image: 'mounted' });
    const after = (r: Parameters<typeof devicesOf>[0]) => cloud.putRequests().indexOf(r) >= before;
    const back = await cloud.waitForPut((r) => after(r) && mine(r) !== undefined && mine(r)!.status !== 'UNPLUGGED', 30_000);
    const stale = await cloud.waitForPut((r) => after(r) && /its iOS 17 tunnel on go-ios's tunnel agent .* is stale/.test(mine(r)?.message ?? ''), 30_000);
    // Never called ready on the tunnel it outlived: no report from the one that has it back to the one naming it stale.
    const between = cloud.putRequests().slice(cloud.putRequests().indexOf(back), cloud.putRequests().indexOf(stale));
    expect(between.map((r) => mine(r)).filter((d) => d?.support?.appiumDisabled === false)).toEqual([]);
    expect(mine(stale)).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: true } });
    expect(mine(stale)?.message).toContain(`curl -X DELETE ${go.url}/tunnel/${phone.udid}`);
    // The agent only read: the daemon saw no DELETE.
    expect(go.requests.filter((r) => !r.startsWith('GET /tunnels'))).toEqual([]);

    // The daemon drops it and makes a new one: live, ready again.
    go.tunnels = [];
    go.newTunnel(phone.udid);
    const mark = cloud.putRequests().length;
    await cloud.waitForPut(
      (r) => cloud.putRequests().indexOf(r) >= mark && mine(r)?.message === undefined && mine(r)?.support?.appiumDisabled === false,
      30_000,
    );
  }, 120_000);

  it('list beside the running daemon: an iPhone with no live tunnel is not ready in list --json as in its report (issue 71, 2)', async () => {
    const phone = mux.plug({ profile: 'iphone-15-ios17' });
    const env = daemonEnv(adb.env, cloud, { ...iosEnv(goIos('1.3.2'), 'go-ios=http://127.0.0.1:9'), DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    agent = startAgent(['run'], env);
    const mine = (r: Parameters<typeof devicesOf>[0]) => devicesOf(r).find((d) => d.udid === phone.udid) as Reported | undefined;
    const put = await cloud.waitForPut((r) => mine(r)?.support?.appiumDisabled === true, 30_000);
    expect(mine(put)?.message).toContain('not ready for automation: no iOS 17 tunnel daemon answers on this host');
    const list = await runAgent(['list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toMatch(/the phones as the agent running here \(pid \d+\) knows them now/);
    const row = (JSON.parse(list.stdout) as Array<{ udid: string; features?: Record<string, string>; inService?: unknown }>).find((r) => r.udid === phone.udid);
    expect(row?.features).toMatchObject({ readiness: expect.stringMatching(/^not ready: .*tunnel/), tunnel: 'no daemon' });
    // doctor --json says the same of it, as the running agent knows it.
    const doctor = await runAgent(['doctor', '--json'], env);
    const said = (JSON.parse(doctor.stdout) as { phones?: Array<{ udid: string; readiness?: string; inService?: unknown }> }).phones?.find(
      (p) => p.udid === phone.udid,
    );
    expect(said).toMatchObject({ readiness: row?.features?.readiness, inService: { state: 'needs_person', layer: 'readiness' } });
  }, 60_000);

  it('Developer Mode off, or no developer disk image: not ready with what to do, Appium off, never unplugged', async () => {
    const devOff = mux.plug({ profile: 'iphone-15-ios17', developerMode: false, udid: '00008120-0000DEVOFF0001' });
    const noImage = mux.plug({ profile: 'iphone-15-ios17', developerImage: 'not-mounted', udid: '00008120-0000NOIMAGE001' });
    for (const p of [devOff, noImage]) go.newTunnel(p.udid);
    const devices = await once(iosEnv(goIos('1.3.2')));
    expect(devices.get(devOff.udid)).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: true } });
    expect(devices.get(devOff.udid)?.message).toContain(
      'Developer Mode is off (DeveloperModeStatus), expected on: Settings > Privacy & Security > Developer Mode on',
    );
    expect(devices.get(noImage.udid)).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: true } });
    expect(devices.get(noImage.udid)?.message).toContain(
      'the developer disk image is off (mobile_image_mounter LookupImage), expected on: mount the personalized developer disk image: `ios image auto`',
    );
    // Each read over lockdown in the inventory's one session: a LookupImage, no tunnel needed.
    expect(noImage.sessions).toBe(1);
    expect(noImage.log.filter((l) => l.request === 'LookupImage')).toHaveLength(1);
  }, 60_000);

  it('an iOS the host\'s tools do not support: "not supported on this host", with what to install; an older iPhone is not judged', async () => {
    const new17 = mux.plug({ profile: 'iphone-15-ios17' });
    const old16 = mux.plug({ profile: 'iphone-13-ios16' });
    const mine = (r: Parameters<typeof devicesOf>[0], udid: string) => devicesOf(r).find((d) => d.udid === udid) as Reported | undefined;
    // go-ios before 1.0.122 has no iOS 17 tunnel, pymobiledevice3 is not installed, and no daemon answers.
    agent = startAgent(['run'], daemonEnv(adb.env, cloud, iosEnv(goIos('1.0.100'), 'go-ios=http://127.0.0.1:9')));
    const put = await cloud.waitForPut((r) => mine(r, new17.udid) !== undefined && mine(r, old16.udid) !== undefined, 30_000);
    expect(mine(put, new17.udid)).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: true } });
    expect(mine(put, new17.udid)?.message).toContain(
      "not supported on this host: iOS 17.4.1 needs an iOS 17 tunnel daemon, and this host's tools do not give one for it: install go-ios 1.0.122 or later",
    );
    expect(mine(put, old16.udid)?.message ?? '').not.toContain('not supported');
    await agent.stop('SIGTERM');
    // With go-ios 1.3.2 (and still no daemon), the same phone is supported, not ready for want of a daemon.
    cloud.clearRequests();
    agent = startAgent(['run'], daemonEnv(adb.env, cloud, iosEnv(goIos('1.3.2'), 'go-ios=http://127.0.0.1:9')));
    const supported = await cloud.waitForPut((r) => mine(r, new17.udid) !== undefined, 30_000);
    expect(mine(supported, new17.udid)?.message).toContain('no iOS 17 tunnel daemon answers on this host');
    expect(mine(supported, new17.udid)?.message).not.toContain('not supported');
  }, 60_000);
});
