// A mixed lab end to end under `once --dry-run`: the real adb server with a
// simulated Android phone, the simulated usbmuxd with iPhones, the compiled
// CLI in its own process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { baseEnv, runAgent } from './agent-process.js';

const adb = new AdbServer();
const pixel = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PIXELMIX0001') });
const mux = new SimUsbmuxd();

beforeAll(async () => {
  await adb.start();
  await mux.start();
  const port = await pixel.start();
  await adb.connect(port, { wait: false });
  await adb.waitForStates(new Map([[`127.0.0.1:${port}`, 'device']]), 20_000);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([pixel.stop(), mux.dispose()]);
});

const env = (extra: Record<string, string> = {}) => baseEnv({ ...adb.env, ...mux.env, DEVICE_AGENT_NODE_ID: 'mixed-lab', ...extra });

describe('mixed lab: settings reach every platform', () => {
  it('reports an iPhone listed in hiddenDevices with isHidden true, paired or not, beside a hidden Android phone', async () => {
    const cloud = new CloudDouble();
    const baseUrl = await cloud.start();
    const paired = mux.plug({ profile: 'iphone-13-ios16' });
    const untrusted = mux.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: '00008120-00000000000HIDE' });
    const shown = mux.plug({ profile: 'iphone-6s-ios9' });
    try {
      const run = await runAgent(
        ['once'],
        env({
          DEVICE_AGENT_BASE_URL: baseUrl,
          DEVICE_AGENT_USERNAME: cloud.username,
          DEVICE_AGENT_API_KEY: cloud.apiKey,
          DEVICE_AGENT_HIDDEN_DEVICES: `${paired.udid},${untrusted.udid},PIXELMIX0001`,
          DEVICE_AGENT_ADDED_TO_CLOUD: 'true',
        }),
      );
      expect(run.code, run.stderr).toBe(0);
      const [put] = cloud.putRequests();
      const byUdid = new Map((put!.body as { devices: Array<Record<string, unknown>> }).devices.map((d) => [d.udid as string, d]));
      expect(byUdid.get(paired.udid)).toMatchObject({
        isIos: true,
        status: 'AVAILABLE',
        isHidden: true,
        addedToCloud: true,
        support: { appiumDisabled: false },
      });
      expect(byUdid.get(untrusted.udid)).toMatchObject({ isIos: true, status: 'UNAVAILABLE', isHidden: true, addedToCloud: true });
      expect(byUdid.get(shown.udid)).toMatchObject({ isIos: true, isHidden: false, addedToCloud: true });
      expect(byUdid.get('PIXELMIX0001')).toMatchObject({ isAndroid: true, isHidden: true });
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
      await cloud.stop();
    }
  });
});

describe('mixed lab: once --dry-run', () => {
  it('prints Android and iOS devices in one body', async () => {
    const paired = mux.plug({ profile: 'iphone-13-ios16' });
    const old = mux.plug({ profile: 'iphone-6s-ios9' });
    const untrusted = mux.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: '00008120-0000000000000E2E' });
    try {
      const run = await runAgent(['once', '--dry-run'], env());
      expect(run.code, run.stderr).toBe(0);
      const body = JSON.parse(run.stdout);
      const byUdid = new Map<string, Record<string, unknown>>(body.devices.map((d: { udid: string }) => [d.udid, d]));
      expect(byUdid.get('PIXELMIX0001')).toMatchObject({ platformName: 'ANDROID', isAndroid: true, isIos: false });
      expect(byUdid.get(paired.udid)).toMatchObject({
        platformName: 'IOS',
        platformVersion: '16.3.1',
        modelName: 'iPhone 13',
        serialNumber: 'C1QQG9XD4R',
        status: 'AVAILABLE',
        isIos: true,
        isAndroid: false,
        isEmulator: false,
        battery: { percentage: '100' },
      });
      expect(byUdid.get(old.udid)).toMatchObject({ platformVersion: '9.3.5', modelName: 'iPhone 6s', status: 'AVAILABLE' });
      expect(byUdid.get(untrusted.udid)).toMatchObject({ status: 'UNAVAILABLE', message: expect.stringContaining('idevicepair pair') });
      expect(body.devices).toHaveLength(4);
      // One session per paired phone, none for the untrusted one, and no pairing attempted.
      expect(paired.sessions).toBe(1);
      expect(untrusted.sessions).toBe(0);
      expect(untrusted.log.map((l) => l.request)).not.toContain('Pair');
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
    }
  });

  it('list shows iPhones beside Android phones, the untrusted one not up', async () => {
    const paired = mux.plug({ profile: 'iphone-13-ios16' });
    const untrusted = mux.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: '00008120-0000000000000E2F' });
    try {
      const run = await runAgent(['list', '--json'], env());
      expect(run.code, run.stderr).toBe(0);
      const rows = new Map((JSON.parse(run.stdout) as Array<{ udid: string }>).map((r) => [r.udid, r]));
      expect(rows.get('PIXELMIX0001')).toMatchObject({ platform: 'Android', up: true });
      expect(rows.get(paired.udid)).toMatchObject({
        platform: 'iOS',
        serial: paired.udid,
        model: 'iPhone 13',
        version: '16.3.1',
        batteryPercent: 100,
        up: true,
      });
      expect(rows.get(untrusted.udid)).toMatchObject({ platform: 'iOS', up: false });
      const table = await runAgent(['list'], env());
      // Its udid in UDID too, though it is its serial: a blank would read as unknown (issue 61).
      expect(table.stdout).toMatch(new RegExp(`^${paired.udid}\\s+${paired.udid}\\s+paired\\s+iPhone 13\\s+iOS 16\\.3\\.1\\s+100%`, 'm'));
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
    }
  });

  it('ios false leaves iPhones out and never touches usbmuxd', async () => {
    mux.plug({ profile: 'iphone-13-ios16' });
    const before = mux.requests.length;
    try {
      const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_IOS: 'false' }));
      expect(run.code, run.stderr).toBe(0);
      const body = JSON.parse(run.stdout);
      expect(body.devices.map((d: { platformName: string }) => d.platformName)).toEqual(['ANDROID']);
      expect(mux.requests.length).toBe(before);
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
    }
  });

  it('no usbmuxd socket with iPhones asked for (ios true): Android still reported, one informational line about iPhones', async () => {
    const run = await runAgent(['once', '--dry-run'], env({ USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd', DEVICE_AGENT_IOS: 'true' }));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).devices).toHaveLength(1);
    const lines = run.stderr.split('\n').filter((l) => l.includes('usbmuxd'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: expect.stringContaining('no usbmuxd socket') });
  });

  it('no usbmuxd socket and ios unset (a host without iPhones): not a word about usbmuxd, above the list table or in a report', async () => {
    const [list, once] = await Promise.all([
      runAgent(['list'], env({ USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd' })),
      runAgent(['once', '--dry-run'], env({ USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd' })),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^SERIAL/);
    expect(once.code, once.stderr).toBe(0);
    expect(list.stderr + once.stderr).not.toContain('usbmuxd');
  });

  it('a lockdown that never answers costs its deadline only', async () => {
    mux.plug({ profile: 'iphone-13-ios16', state: 'hang', udid: '00008110-00000000000HANG' });
    try {
      const t0 = Date.now();
      const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_IOS_TIMEOUT_SECONDS: '1' }));
      expect(run.code, run.stderr).toBe(0);
      expect(Date.now() - t0).toBeLessThan(15_000);
      const hung = JSON.parse(run.stdout).devices.find((d: { udid: string }) => d.udid === '00008110-00000000000HANG');
      expect(hung).toMatchObject({ status: 'UNAVAILABLE', message: expect.stringContaining('did not answer') });
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
    }
  });
});

describe('mixed lab: run', () => {
  // The daemon bed brings its own adb server and cloud double; the usbmuxd
  // simulator above is shared.
  it('reports both platforms at start, an iPhone plug and unplug within 2 s, the unplugged iPhone as UNPLUGGED', async () => {
    const { DaemonBed } = await import('./daemon-bed.js');
    const { devicesOf, udidsOf } = await import('../support/reports.js');
    const bed = new DaemonBed();
    await bed.start();
    try {
      await bed.plug('RUNMIX0001');
      const first = mux.plug({ profile: 'iphone-13-ios16' });
      const agent = bed.run({ ...mux.env, DEVICE_AGENT_SCHEDULE: '0 0 * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
      const start = await bed.cloud.waitForPut((r) => udidsOf(r).includes('RUNMIX0001') && udidsOf(r).includes(first.udid), 30_000);
      expect(devicesOf(start).find((d) => d.udid === first.udid)).toMatchObject({ status: 'AVAILABLE' });
      // The per-device metrics have the iPhone as well.
      const listen = String((await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)')).listen);
      const metrics = await (await fetch(`http://${listen}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`^device_agent_device_info\\{udid="${first.udid}",serial="${first.udid}",model="iPhone 13",platform="iOS",os_version="16\\.`, 'm'),
      );
      expect(metrics).toMatch(new RegExp(`^device_agent_device_state\\{udid="${first.udid}",state="paired"\\} 1$`, 'm'));
      expect(metrics).toMatch(new RegExp(`^device_agent_device_up\\{udid="${first.udid}"\\} 1$`, 'm'));
      expect(metrics).toMatch(new RegExp(`^device_agent_device_battery_level_percent\\{udid="${first.udid}"\\} 100$`, 'm'));

      // A plug and an unplug are reported. Within 2 s on a quiet host is the
      // planner's rule (test/timing/planner.property.test.ts), and the Android
      // seam's (test/e2e/run.test.ts): this waited 5 s of quiet before each.
      const second = mux.plug({ profile: 'iphone-15-ios17' });
      await bed.cloud.waitForPut((r) => udidsOf(r).includes(second.udid), 10_000);
      mux.unplug(second);
      const gone = await bed.cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === second.udid && d.status === 'UNPLUGGED'), 10_000);
      // The Android phone and the first iPhone stay in the reports.
      expect(udidsOf(gone)).toEqual(expect.arrayContaining(['RUNMIX0001', first.udid]));
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
      await bed.stop();
    }
  }, 90_000);

  it('a usbmuxd restart whose iPhones are listed again late: no report drops one or sends it UNPLUGGED, nor asks it before it is listed', async () => {
    const { DaemonBed } = await import('./daemon-bed.js');
    const { devicesOf } = await import('../support/reports.js');
    const { waitFor } = await import('../support/wait.js');
    const bed = new DaemonBed();
    await bed.start();
    try {
      const phone = mux.plug({ profile: 'iphone-13-ios16' });
      const agent = bed.run({ ...mux.env, DEVICE_AGENT_SCHEDULE: '0 0 * * *' });
      await bed.cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === phone.udid && d.status === 'AVAILABLE'), 30_000);
      const t0 = Date.now();
      const listed = () => mux.requests.filter((t) => t === 'ListDevices').length;
      const before = listed();
      // A just-started usbmuxd lists a phone once its version exchange and preflight are done: here 6 s after its socket is back.
      await mux.restart(100, 6_000);
      await waitFor(() => listed() > before, 5_000, 'the agent asking the restarted usbmuxd for its list');
      const hup = Date.now();
      agent.child.kill('SIGHUP');
      const during = await bed.cloud.waitForPut((r) => r.receivedAt >= hup, 10_000);
      // Composed while usbmuxd did not list the phone yet: the case at stake, not one after it came back.
      expect(during.receivedAt).toBeLessThan(t0 + 6_000);
      const since = bed.cloud.putRequests().filter((r) => r.receivedAt >= t0);
      for (const r of since) expect(devicesOf(r).find((d) => d.udid === phone.udid)?.status ?? 'absent').not.toMatch(/^(absent|UNPLUGGED)$/);
      // Not asked meanwhile (the restarted usbmuxd numbers its devices afresh and refuses one not active yet):
      // reported with its last reading, as it was.
      const kept = devicesOf(during).find((d) => d.udid === phone.udid);
      expect(kept).toMatchObject({ status: 'AVAILABLE', modelName: 'iPhone 13' });
      expect(kept?.message).toBeUndefined();
    } finally {
      for (const p of [...mux.phones.values()]) mux.unplug(p);
      await bed.stop();
    }
  }, 90_000);
});
