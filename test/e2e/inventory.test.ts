import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { PROBES } from '../../src/platforms/android/inventory/probes/registry.js';
import { AdbServer } from '../sim/adb-server.js';
import { listProfiles, loadProfile, parseGetprop, withSerial, type Profile } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { recordedCommand } from '../platforms/android/inventory/support.js';
import { baseEnv, runAgent } from './agent-process.js';

// The full inventory end to end: every recorded device profile behind the
// real adb server, one `once --dry-run`, and each device's fields checked
// against what its recordings say (values read off the recording files).

const adb = new AdbServer();
const devices = new Map<string, SimDevice>();
const profiles = new Map<string, Profile>();
let body: { devices: DeviceInfo[] };
let doneAtMs: number;

// Some recordings carry no serial: give those one so that they are told apart.
const serialFor: Record<string, string> = {
  'huawei-mate9-harmonyos2': 'MHA0AL00TEST',
  'emulator-sdk-android6': 'emulator-5554',
  'pixel-8-pro': 'HUSKY0TEST',
  'konka-tv-android5.1': 'KONKATV551',
};

beforeAll(async () => {
  await adb.start();
  for (const name of listProfiles()) {
    const profile = serialFor[name] ? withSerial(loadProfile(name), serialFor[name]) : loadProfile(name);
    const device = new SimDevice({ profile });
    devices.set(name, device);
    profiles.set(name, profile);
    await adb.connect(await device.start());
  }
  const run = await runAgent(['once', '--dry-run'], baseEnv({ ...adb.env }));
  expect(run.code, run.stderr).toBe(0);
  doneAtMs = Date.now();
  body = JSON.parse(run.stdout);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([...devices.values()].map((d) => d.stop()));
});

const byUdid = (udid: string) => body.devices.find((d) => d.udid === udid);

describe('full inventory of recorded devices', () => {
  it('reports every device, each with one shell session', () => {
    expect(body.devices).toHaveLength(devices.size);
    for (const [name, device] of devices) {
      expect(device.shellSessions, name).toBeGreaterThanOrEqual(1);
      expect(device.shellSessions, name).toBeLessThanOrEqual(2);
    }
  });

  it('Samsung Galaxy S25+ (One UI): identity and the dumpsys battery figures', () => {
    expect(byUdid('R5CY743GDFY')).toMatchObject({
      state: 'device',
      status: 'AVAILABLE',
      platformVersion: '16',
      modelName: 'SM-S936B',
      brandName: 'samsung',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
      // dumpsys-battery.txt: status 5, health 2, level 100/100, voltage 4312, temperature 309 (tenths of °C)
      battery: { status: 'FULL', health: 'GOOD', percentage: '100', voltage: 4312, temperature: 31, technology: 'Li-ion' },
    });
  });

  it('Xiaomi POCO F6: marketing name, battery and the IP address', () => {
    expect(byUdid('f89a5ec6')).toMatchObject({
      platformVersion: '15',
      modelName: '24069PC21I',
      brandName: 'POCO',
      deviceName: 'POCO F6',
      // dumpsys-battery.txt: status 2, level 80, voltage 4228, temperature 364
      battery: { status: 'CHARGING', health: 'GOOD', percentage: '80', voltage: 4228, temperature: 36, technology: 'Li-poly' },
      networkReachability: { ipAddress: '192.168.1.130' },
      // wm-size.txt: "Physical size: 720x1280" after two noise lines; proc-uptime.txt: 52784.18
      resolution: { width: 720, height: 1280 },
    });
    // The simulator's uptime advances from the recording (52784.18 s when the
    // device was started): at most the time the run took more.
    const poco = devices.get('xiaomi-poco-f6')!;
    const { uptime, bootTime } = byUdid('f89a5ec6')!;
    expect(uptime).toBeGreaterThanOrEqual(52784);
    expect(uptime).toBeLessThanOrEqual(Math.ceil(poco.uptimeSeconds - (Date.now() - doneAtMs) / 1000));
    // Booted 52784.18 s before the device started, by the host clock.
    expect(Math.abs(bootTime! - (Date.now() / 1000 - poco.uptimeSeconds))).toBeLessThan(3);
  });

  it('Huawei Mate 9 on HarmonyOS 2: the Android base version and the brand from the fingerprint', () => {
    const huawei = byUdid('MHA0AL00TEST');
    expect(huawei).toMatchObject({ platformVersion: '9', brandName: 'HUAWEI', isEmulator: false, isRooted: false });
    // wm-size.txt Physical 1080x1920 / Override 480x1024; wm-density.txt Override 320
    expect(huawei!.resolution).toEqual({ width: 1080, height: 1920, logical: { width: 480, height: 1024 }, projection: 320 });
  });

  it('Android 6 emulator: emulator flag and toolbox df storage in bytes', () => {
    const emulator = byUdid('emulator-5554');
    // id.txt: uid=0(root) after `adb root`
    expect(emulator).toMatchObject({ platformVersion: '6.0', isEmulator: true, cpuArchitecture: 'x86_64', isRooted: true });
    // df-data.txt: /data 21.9G size, 12.1G used (toolbox units, 1024-based)
    expect(emulator!.storage!.total).toBe(Math.round(21.9 * 1024 ** 3));
    expect(emulator!.storage!.used).toBe(Math.round(12.1 * 1024 ** 3));
  });

  it('OnePlus Nord N10 and Pixel 8 Pro (getprop only): identity, and nothing invented for the rest', () => {
    expect(byUdid('90241ad3')).toMatchObject({ platformVersion: '11', modelName: 'BE2028', brandName: 'OnePlus', deviceName: 'OnePlus Nord N10 5G' });
    const pixel = byUdid('HUSKY0TEST')!;
    expect(pixel).toMatchObject({ platformVersion: '16', modelName: 'Pixel 8 Pro', brandName: 'google' });
    for (const field of ['battery', 'storage', 'memory', 'resolution', 'uptime', 'bootTime'] as const) {
      expect(pixel[field], field).toBeUndefined();
    }
  });

  it('Konka Android TV 551 (Android 5.1.1 TV set, getprop only): identity, no carrier, and no battery invented', () => {
    const konka = byUdid('KONKATV551')!;
    expect(konka).toMatchObject({
      status: 'AVAILABLE',
      platformVersion: '5.1.1',
      modelName: 'Konka Android TV 551',
      brandName: 'HiDPT',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
      // ro.radio.noril=true
      telephony: { carriersInfo: [] },
    });
    for (const field of ['battery', 'storage', 'memory', 'resolution'] as const) expect(konka[field], field).toBeUndefined();
  });

  // Whole-device recordings: one adb bugreport per phone (sources in each profile.json).
  const kib = (k: number) => k * 1024;

  it('Smartron T5911 (Android 8.1, dual SIM): data connected on the second SIM, Chrome, the settings device name', () => {
    expect(byUdid('RE14311190')).toMatchObject({
      platformVersion: '8.1.0',
      modelName: 'T5911',
      brandName: 'Smartron',
      deviceName: 'T5911',
      // dumpsys-battery.txt: status 2, level 74, voltage 4113, temperature 245
      battery: { status: 'CHARGING', health: 'GOOD', percentage: '74', voltage: 4113, temperature: 25, technology: 'Li-ion' },
      // df-data.txt: 54432680 1K-blocks, 1831340 used; meminfo.txt: MemTotal 3669728 kB, MemAvailable 2200236 kB
      storage: { total: kib(54432680), used: kib(1831340) },
      memory: { total: kib(3669728), used: kib(3669728 - 2200236) },
      orientation: 0,
      installedBrowsers: [{ name: 'chrome' }],
      networkReachability: { proxy: false },
      // gsm.sim.state ABSENT,READY; registry: Phone Id=0 -1, Phone Id=1 2
      telephony: {
        mobileDataState: 'CONNECTED',
        carriersInfo: [
          { slot: 0, imei: '', meid: '', iccid: '' },
          { slot: 1, imei: '', meid: '', iccid: '' },
        ],
      },
    });
  });

  it('vivo X9 (Android 7.1.2, dual SIM): data off on the SIM in slot 1, the stock and vivo browsers', () => {
    expect(byUdid('bbc690bc')).toMatchObject({
      platformVersion: '7.1.2',
      deviceName: 'vivo X9',
      battery: { status: 'DISCHARGING', percentage: '55', voltage: 3817, temperature: 27 },
      storage: { total: kib(55532392), used: kib(44309828) },
      installedBrowsers: [{ name: 'vivo-browser' }, { name: 'android-browser' }],
      telephony: { mobileDataState: 'DISCONNECTED' },
    });
  });

  it('Meizu MX6 (Android 7.1.1, Flyme): IMEI per slot and the MEID from the props, no SIM', () => {
    expect(byUdid('M95QACPAY2ZQP')).toMatchObject({
      deviceName: 'MX6',
      battery: { status: 'CHARGING', percentage: '100', voltage: 4292, temperature: 30 },
      storage: { total: kib(26658784), used: kib(11095892) },
      memory: { total: kib(3829040), used: kib(3829040 - 1804300) },
      // getprop.txt: ril.gsm.imei [861069037542332,861069037542340], ril.cdma.meid [86106903754235]
      telephony: {
        mobileDataState: 'UNKNOWN',
        carriersInfo: [
          { slot: 0, imei: '861069037542332', meid: '86106903754235', iccid: '' },
          { slot: 1, imei: '861069037542340', meid: '', iccid: '' },
        ],
      },
    });
  });

  it('Google Pixel (Android 10, AOSP build): full battery, no SIM, no browser package', () => {
    expect(byUdid('FA69P0301911')).toMatchObject({
      platformVersion: '10',
      modelName: 'Pixel',
      deviceName: 'Pixel',
      battery: { status: 'FULL', percentage: '100', voltage: 4401, temperature: 26 },
      storage: { total: kib(25497924), used: kib(4995672) },
      installedBrowsers: [],
      telephony: { mobileDataState: 'UNKNOWN', carriersInfo: [{ slot: 0, imei: '', meid: '', iccid: '' }] },
    });
  });

  it('Meizu MX5 (Android 5.1 through a pty): identity and the IMEI parcel; moto g power (2022): identity from getprop alone', () => {
    // service-call-iphonesubinfo-1.txt: the Parcel of IMEI 860955027785041, through a pty (\r\n)
    expect(byUdid('85EABNFZ8KEM')).toMatchObject({
      platformVersion: '5.1',
      modelName: 'MX5',
      brandName: 'Meizu',
      isEmulator: false,
      telephony: {
        carriersInfo: [
          { slot: 0, imei: '860955027785041', meid: '', iccid: '' },
          { slot: 1, imei: '', meid: '', iccid: '' },
        ],
      },
    });
    expect(byUdid('ZY22GDX7GG')).toMatchObject({
      platformVersion: '12',
      modelName: 'moto g power (2022)',
      brandName: 'motorola',
      cpuArchitecture: 'arm64-v8a',
    });
  });

  it('Galaxy Tab S7+ Wi-Fi (no radio): telephony is an empty carrier list, not missing', () => {
    const tab = byUdid('R32N5018NYP');
    // getprop.txt: ro.carrier=wifi-only, ro.radio.noril=yes, no gsm.sim.state
    expect(tab).toMatchObject({ platformVersion: '13', modelName: 'SM-T970', brandName: 'samsung' });
    expect(tab!.telephony).toEqual({ carriersInfo: [] });
  });

  // The bar: every field that a profile's recordings allow is filled.
  // Which recorded command feeds which field comes from the probe registry;
  // whether a DeviceInfo shows a probe's reading, from this table.
  const FILLED: Record<string, (d: DeviceInfo) => boolean> = {
    props: (d) => d.isEmulator !== undefined && d.platformVersion !== undefined,
    imei: (d) => Boolean(d.telephony?.carriersInfo?.[0]?.imei),
    id: (d) => d.isRooted !== undefined,
    su: (d) => d.isRooted !== undefined,
    device_name: (d) => Boolean(d.deviceName),
    bluetooth_name: (d) => Boolean(d.deviceName),
    proxy: (d) => d.networkReachability?.proxy !== undefined,
    wm_density: (d) => d.resolution === undefined || d.resolution.projection !== undefined,
    packages: (d) => d.installedBrowsers !== undefined,
    battery: (d) => Boolean(d.battery?.percentage && d.battery.status && d.battery.health),
    df: (d) => d.storage !== undefined,
    meminfo: (d) => d.memory !== undefined,
    wm_size: (d) => d.resolution !== undefined,
    orientation: (d) => d.orientation !== undefined,
    ip: (d) => d.networkReachability?.ipAddress !== undefined,
    telephony: (d) => d.telephony?.mobileDataState !== undefined,
    uptime: (d) => d.uptime !== undefined && d.bootTime !== undefined,
  };
  const FILLS = PROBES.flatMap((probe) => {
    const command = recordedCommand(probe);
    const filled = FILLED[probe.section];
    return command === undefined || filled === undefined ? [] : [[command, probe.section, filled] as const];
  });

  it('the fill-table covers every probe with a fixed command that feeds a field but the SIM state (the slots telephony counts)', () => {
    expect(FILLS.map(([, section]) => section)).toEqual(
      PROBES.filter((p) => typeof p.command === 'string' && p.fields.length > 0 && p.section !== 'sim_state').map((p) => p.section),
    );
  });

  it('fills every field that each recording allows', () => {
    let checked = 0;
    for (const [name, profile] of profiles) {
      // adbTunnelInfo carries the port that this simulated device listens on.
      const info = body.devices.find((d) => d.adbTunnelInfo?.port === devices.get(name)!.port)!;
      expect(info, name).toBeDefined();
      for (const [command, field, filled] of FILLS) {
        if (!profile.commands.has(command)) continue;
        expect(filled(info), `${name}: ${field} from "${command}"`).toBe(true);
        checked++;
      }
      const props = parseGetprop(profile.commands.get('getprop')?.output ?? '');
      // Identity fields whose own property the dump carries (parsed by the simulator, not the agent).
      const fromProp: [keyof DeviceInfo, string][] = [
        ['platformVersion', 'ro.build.version.release'],
        ['modelName', 'ro.product.model'],
        ['brandName', 'ro.product.brand'],
        ['cpuArchitecture', 'ro.product.cpu.abi'],
        ['udid', 'ro.serialno'],
      ];
      for (const [field, prop] of fromProp) {
        if (props.get(prop)) expect(info[field], `${name}: ${field}`).toBe(props.get(prop));
      }
      const userName = profile.commands.get('settings get global device_name');
      if (userName) expect(info.deviceName, name).toBe(userName.output.trim());
    }
    // Not vacuous: the recordings above hold this many command-field pairs.
    expect(checked).toBeGreaterThanOrEqual(40);
  });
});
