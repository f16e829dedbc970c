// The agent's memory under churn, on virtual time: how much the heap grows
// an hour once warm, and what it holds per phone. The report path is the
// real one (the Android source's runner and describer, the registry and its
// readings, the presence ledger, the features as the daemon registers them,
// the reporter, the UNPLUGGED ledger); adb's listing, the phones' property
// dumps and inventories and the cloud are in memory, so that hours of churn take seconds and the machine's
// load cannot move the figures. Heap after a full GC, not RSS: what the
// agent keeps, apart from what V8 and malloc hold on to.
//
// Churn, every virtual minute: a report; two phones replugged (their record
// goes and comes back), two whose transport drops and comes back (a new
// connection), now and then a network phone whose link drops for a few
// minutes; every 10 min a 3-min cloud outage; every 15 min an adb restart
// (nothing listed for a minute, then all of it again).
//
// Run: npm run bench:churn (CHURN_HOURS=1, CHURN_PHONES=30; CHURN_LAB=200 for
// the per-phone figure).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildFeatures } from '../../src/agent/features.js';
import { CloudUnavailableError } from '../../src/cloud/errors.js';
import type { DeviceInfo, Machine, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import type { HealthSettings } from '../../src/features/health/rules.js';
import { silentLogger } from '../../src/log/logger.js';
import type { AdbClient } from '../../src/platforms/android/adb/client.js';
import type { DeviceProber } from '../../src/platforms/android/inventory/probe.js';
import { AndroidSource } from '../../src/platforms/android/source.js';
import { Reporter, type ReportSink } from '../../src/report/reporter.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { seededRandom, VirtualTime } from '../support/virtual-time.js';
import { NOTHING_DISABLED } from '../platforms/android/inventory/support.js';
import { loadSettings } from '../../src/config/load.js';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const HOURS = Number(process.env.CHURN_HOURS ?? 1);
const PHONES = Number(process.env.CHURN_PHONES ?? 30);
const LAB = Number(process.env.CHURN_LAB ?? 200);
const WARM_MIN = 20;
/** The health rules the agent ships. */
const shippedHealth: HealthSettings = loadSettings({ env: {} }).health;
const MINUTE = 60_000;

/** A phone's inventory as the prober assembles it: new strings and objects at each answer, as parsed output is. */
function inventory(serial: string, n: number): DeviceInfo {
  const s = (text: string) => `${text}`.concat('');
  return {
    udid: s(serial),
    serialNumber: s(serial),
    state: 'device',
    status: 'AVAILABLE',
    platformName: 'ANDROID',
    platformVersion: s('14'),
    modelName: s(`Pixel 8 Pro ${serial.slice(-2)}`),
    brandName: s('google'),
    deviceName: s(`husky-${serial}`),
    cpuArchitecture: s('arm64-v8a'),
    isAndroid: true,
    isIos: false,
    isEmulator: false,
    isRooted: false,
    adbTunnelInfo: serial.includes(':') ? { host: s(serial.split(':')[0]!), port: 5555 } : undefined,
    installedBrowsers: ['Chrome', 'Firefox', 'Samsung Internet', 'Opera', 'Edge'].map((name) => ({ name: s(`${name} ${120 + (n % 7)}.0.${n}`) })),
    orientation: 0,
    resolution: { width: 1344, height: 2992, projection: 480, logical: { width: 448, height: 997 } },
    networkReachability: { code: 200, host: s('cloud.example'), status: s('reachable'), ipAddress: s(`10.1.${n % 250}.7`), proxy: false },
    uptime: 3_600 + n * 60,
    bootTime: 1_750_000_000 + n,
    storage: { total: 256e9, used: 156e9 + n * 1e6 },
    memory: { total: 12e9, used: 8e9 + n * 1e5 },
    battery: {
      status: s('charging'),
      temperature: 30 + (n % 5),
      voltage: 4_200,
      health: s('good'),
      technology: s('Li-ion'),
      percentage: String(50 + (n % 50)),
    },
    telephony: {
      mobileDataState: s('connected'),
      carriersInfo: [{ imei: s(`35${serial.padStart(13, '0')}`), meid: s(''), slot: 0, iccid: s(`8901${serial.padStart(15, '0')}`) }],
    },
    batteryDetail: { externalPower: true, chargerMillivolts: 9_000, cycleCount: 300, healthPercent: 90, observedAtMs: n },
  };
}

class Cloud implements ReportSink {
  readonly host = 'cloud.example';
  down = false;
  putDevices(_body: ReportBody): Promise<ReportAnswer> {
    return this.down
      ? Promise.reject(new CloudUnavailableError('PUT /devices', 'down in the churn bed', { status: 503 }))
      : Promise.resolve({ failedDevices: [] });
  }
}

function bed(phones: number, network: number) {
  const time = new VirtualTime();
  const clock = time.clock();
  const registry = new DeviceRegistry();
  const answers = new Map<string, number>();
  const prober = {
    counters: { shellSessions: 0, bytesRead: 0 },
    invalidateSlow: () => undefined,
    madeProgress: () => true,
    wasCut: () => false,
    probe: (serial: string, _state: string, _connection: number | undefined, identified?: (info: DeviceInfo) => void) => {
      const n = (answers.get(serial) ?? 0) + 1;
      answers.set(serial, n);
      // Its property dump first, as a phone's first inventory of a connection gives it (issue 42).
      const { udid, serialNumber, state, status, platformName, platformVersion, modelName, brandName, isAndroid, isIos } = inventory(serial, n);
      identified?.({ udid, serialNumber, state, status, platformName, platformVersion, modelName, brandName, isAndroid, isIos });
      return Promise.resolve(inventory(serial, n));
    },
  } as unknown as DeviceProber;
  const logger = silentLogger();
  const networkDevices = Array.from({ length: network }, (_, i) => `10.0.0.${i + 1}:5555`);
  const source = new AndroidSource({
    adb: {} as AdbClient,
    prober,
    registry,
    logger,
    clock,
    concurrency: 16,
    reportWait: { idleMs: 1_000, maxMs: 10_000 },
    reconcileMs: 60_000,
    networkDevices,
  });
  const cloud = new Cloud();
  const unplugged = new UnpluggedLedger();
  const reporter = new Reporter({
    nodeId: 'churn',
    sources: [source],
    registry,
    // As the daemon builds them: the USB layer (reading nothing here), readiness, health with the shipped rules.
    features: buildFeatures(
      featureContext<AndroidControl>({
        settings: {
          ...loadSettings({ env: {}, overrides: new Map<string, unknown>([['readiness.checks', []]]) }),
          usb: { kernelLog: '', sysfsRoot: '' },
          health: shippedHealth,
        },
        registry,
        logger,
        clock,
      }),
    ),
    settings: { hiddenDevices: [], addedToCloud: true, support: NOTHING_DISABLED },
    machine: { collect: () => Promise.resolve({ hostname: 'churn' } as Machine) },
    cloud,
    unplugged,
    stats: new AgentStats(),
    logger,
    clock,
  });
  const usb = Array.from({ length: phones }, (_, i) => `CHURN${String(i).padStart(3, '0')}`);
  const listing = new Map<string, string>([...usb, ...networkDevices].map((s) => [s, 'device']));
  let complete = true;
  const report = () =>
    reporter.send({ request: { refresh: 'all', waitForAll: true }, reason: 'schedule', complete, listed: true, deadline: clock.wall() + MINUTE });
  return { time, registry, source, cloud, unplugged, usb, networkDevices, listing, report, setComplete: (c: boolean) => (complete = c) };
}

const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mb = (b: number) => (b / 2 ** 20).toFixed(2);

/** An hour (or CHURN_HOURS) of churn after a warm-up: the heap once a virtual 5 min, and its growth an hour by least squares. */
async function churn(): Promise<void> {
  const b = bed(PHONES, 4);
  const random = seededRandom(62);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const dropped = new Map<string, number>();
  const samples: Array<[minute: number, bytes: number]> = [];
  const total = WARM_MIN + HOURS * 60;
  let restartUntil = -1;
  for (let minute = 0; minute <= total; minute++) {
    b.time.runUntil(minute * MINUTE);
    b.cloud.down = minute % 10 >= 7;
    if (minute > 0 && minute % 15 === 0) {
      // adb restarts: it lists nothing for a minute, and its listing is not complete until it settles.
      restartUntil = minute + 1;
      b.registry.sync('android', new Map());
      b.registry.readings.forgive('android');
      b.unplugged.sourceConnected();
      b.setComplete(false);
    } else if (minute === restartUntil) {
      b.setComplete(true);
    }
    if (minute >= restartUntil) {
      const next = new Map(b.listing);
      // Two phones replugged: gone in this listing, back in the next.
      for (let i = 0; i < 2; i++) next.delete(pick(b.usb));
      // Two transports drop and come back: a new connection each.
      for (let i = 0; i < 2; i++) next.set(pick(b.usb), 'offline');
      // A network phone's link drops for a few minutes now and then.
      if (random() < 0.2) dropped.set(pick(b.networkDevices), minute + 2 + Math.floor(random() * 6));
      for (const [address, until] of dropped) {
        if (minute >= until) dropped.delete(address);
        else next.delete(address);
      }
      b.registry.sync('android', next);
      await b.report();
      b.registry.sync('android', new Map([...b.listing].filter(([s]) => !dropped.has(s))));
    }
    await b.report();
    if (minute >= WARM_MIN && minute % 5 === 0) samples.push([minute, heap()]);
  }
  const n = samples.length;
  const mx = samples.reduce((a, [x]) => a + x, 0) / n;
  const my = samples.reduce((a, [, y]) => a + y, 0) / n;
  const slope = samples.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / samples.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  console.log(
    `churn: ${PHONES} USB phones and 4 network phones, ${HOURS} h after ${WARM_MIN} min of warm-up: heap ${mb(samples[0]![1])} -> ${mb(samples[n - 1]![1])} MB, ` +
      `${mb(slope * 60)} MB an hour (least squares over ${n} samples)`,
  );
  console.log(`churn: heap MB by virtual minute: ${samples.map(([m, y]) => `${m}:${mb(y)}`).join(' ')}`);
}

/** What the agent holds per phone: the heap with a lab of LAB phones after three reports, against the same bed with none. */
async function perPhone(): Promise<void> {
  const held = async (phones: number): Promise<number> => {
    const b = bed(phones, 0);
    for (let i = 1; i <= 3; i++) {
      b.time.runUntil(i * MINUTE);
      b.registry.sync('android', b.listing);
      await b.report();
    }
    const bytes = heap();
    // Kept alive until measured.
    if (b.registry.size !== phones) throw new Error('the bed lost phones');
    return bytes;
  };
  await held(0);
  const none = await held(0);
  const lab = await held(LAB);
  console.log(`lab: ${LAB} phones after three reports hold ${mb(lab - none)} MB of heap over none: ${((lab - none) / LAB / 1024).toFixed(1)} KB a phone`);
}

await perPhone();
await churn();
