import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { procSample, parseMetrics } from '../bench/measure.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbProxy } from '../sim/adb-proxy.js';
import { AdbServer } from '../sim/adb-server.js';
import { trackDevices } from '../sim/host-client.js';
import { loadProfile, withProps, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { PROBE_RETRY } from '../../src/timing/planner.js';
import { backoffBound } from '../../src/util/backoff.js';
import { seededRandom } from '../support/virtual-time.js';
import { AVAILABILITY_FILE, clockFrom } from '../../src/features/availability/store.js';
import { IN_SERVICE, partsOf } from '../../src/features/availability/tally.js';
import { devicesOf } from '../support/reports.js';
import { markChaosOver } from '../support/chaos-over.js';
import { sleep } from '../support/wait.js';

// Chaos soak: about 30 simulated phones behind the real adb server plug,
// unplug, flap, wedge and free up at random; the adb server restarts; the
// cloud double cycles through its fault modes (5,000 failedDevices the report
// did not carry among them); one phone's properties hold NUL and control
// characters; the agent gets SIGHUP bursts and stray SIGUSR1/SIGUSR2, and its
// log reader stalls now and then. The USB layer runs beside the rest: a sysfs
// tree shows each plugged phone's serial on its port (usb.sysfsRoot), the
// kernel's USB lines for plugs, unplugs and failed enumerations are appended
// to a replayed /dev/kmsg (usb.kernelLog), and a phone's USB debugging goes
// off now and then (adb loses it, its port keeps it) and on again; a relay in
// front of the adb server gives each phone's line of `adb devices -l` the usb
// path of its port, as a USB phone's carries (the layer places a phone on a
// port by that path only). The agent runs as its own process.
// Afterwards the planner's guarantees are checked from outside, on the
// double's request log and on /healthz and /metrics: nothing hung, the PUT
// rate stayed bounded, every ready phone is reported once the faults stop,
// every phone off adb but on its port is UNAVAILABLE and never UNPLUGGED, no
// phone that is gone is shown as present, RSS and descriptors are flat, and
// no kind of log line came more than 11 times in any minute.
// In-service time (issue 63): the soak keeps each phone's true life (in
// service, or out and the layer of the cause it injected), dated as the soak
// acts, as adb's list changes and as the cloud decides, and at the end holds the agent's own count (its availability.json,
// written at its stop) against it, per phone and for the host; the control
// group, which the soak never faults, is never quarantined.
// CHAOS_SECONDS and CHAOS_SEED change the run; CHAOS_DUMP names a file for the run's record (the truth's and the page's
// samples, every PUT with its answer and each phone's status in it, the agent's lines), to see where a failing run parted.

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 90);
// In CI, from the code as the property tests' (vitest.config.ts): the same code, the same sequence of actions.
const SEED = Number(process.env.CHAOS_SEED ?? process.env.FC_SEED ?? Date.now() % 1_000_000);
// Printed first, so that a run that fails anywhere can be replayed (a failure mid-run printed no seed).
console.log(`chaos: seed ${SEED} (replay with CHAOS_SEED=${SEED})`);
const DEVICES = 30;
/** The control group: phones the soak never faults itself (no unplug, flap, wedge, debugging off, port error or refusal). Only what fails every phone reaches them: adb restarts, the cloud's faults. */
const CONTROL = new Set(Array.from({ length: 5 }, (_, i) => `CHAOS${String(DEVICES - 1 - i).padStart(3, '0')}`));
const profile = loadProfile('pixel-8-pro');
/** The phone whose properties hold NUL and control characters (the cloud double refuses \u0000, as PostgreSQL does). */
const ODD = 'CHAOS000';
const oddProfile = (serial: string) => {
  const p = withSerial(profile, serial);
  return { ...withProps(p, { 'ro.product.marketname': 'Lab\u0000phone\u001b[2J', 'ro.product.brand': 'goo\u0007gle' }), banner: p.banner };
};

// Each attempt its own (a retry after Debian's adb crashed builds the world again: build, tear).
let adb = new AdbServer();
let proxy: AdbProxy;
let cloud = new CloudDouble();
const plugged = new Map<string, SimDevice>();
const unplugged = new Map<string, SimDevice>();
/** Plugged phones whose USB debugging is off (on their port, off adb), and since when (ms). */
const debugOff = new Map<string, number>();
const usbDir = mkdtempSync(join(tmpdir(), 'chaos-usb-'));
const sysfs = join(usbDir, 'sysfs');
const kernelLog = join(usbDir, 'kmsg.rec');
mkdirSync(sysfs);
writeFileSync(kernelLog, '');
let kmsgSeq = 1;
/** A /dev/kmsg record (Documentation/ABI/testing/dev-kmsg) of the kernel's USB driver, in the shapes of test/features/usb/fixtures/. */
const kernel = (text: string): void => {
  appendFileSync(kernelLog, `6,${kmsgSeq},${kmsgSeq++ * 1000},-;${text}\n`);
};
/** Each phone's own hub port, as an enumerated USB device shows in sysfs ("1-1.7/serial"). */
const portOf = (serial: string): string => `1-1.${Number(serial.slice(-3)) + 1}`;
function onPort(serial: string): void {
  mkdirSync(join(sysfs, portOf(serial)), { recursive: true });
  writeFileSync(join(sysfs, portOf(serial), 'serial'), `${serial}\n`);
  kernel(`usb ${portOf(serial)}: new high-speed USB device number ${kmsgSeq % 120} using xhci_hcd`);
  kernel(`usb ${portOf(serial)}: SerialNumber: ${serial}`);
}
function offPort(serial: string): void {
  rmSync(join(sysfs, portOf(serial)), { recursive: true, force: true });
  kernel(`usb ${portOf(serial)}: USB disconnect, device number ${kmsgSeq % 120}`);
}
let agent: AgentProcess;
let stateDir = '';
let statusUrl = '';
/** Plugged phones whose shells the soak wedged. */
const wedged = new Set<string>();
/** The cloud double's refusals of a phone (cloud.failDevices), from when it was told to until it was told to stop (wall ms). */
const refusals: Array<{ serial: string; from: number; until?: number }> = [];
/** The cloud stored the report and the agent could read its answer (an HTML page or garbage with a 200 is neither). */
const took = (r: RecordedRequest): boolean => r.answer?.status === 200 && (r.answer.fault === undefined || r.answer.fault === 'delay');
/** When the cloud took the first report from `ms` on: what it was told then takes effect. */
const tookAfter = (ms: number): number => cloud.putRequests().find((r) => r.receivedAt >= ms && took(r))?.receivedAt ?? Infinity;
/** The cloud refuses the phone at `at`: it was told to, and took a report since (the refusal is its answer to one). */
const refusedAt = (serial: string, at: number): boolean =>
  refusals.some((r) => r.serial === serial && tookAfter(r.from) <= at && (r.until === undefined || at < tookAfter(r.until)));
/** Phones plugged, or their debugging on again, and not listed as ready yet: still out for that (adb shows a new connection offline on its way). */
const returning = new Map<string, 'port' | 'readiness'>();
/** Phones adb lost to a restart of it and does not list as ready again yet: their time out is the adb server's. */
const lostToRestart = new Set<string>();
let restarting = false;
/**
 * Each phone's true life, sampled: in service ('in'), or out and the layer of what the soak did to it: 'adb'
 * (the adb server restarting, until adb lists the phone again), 'port' (unplugged, or plugged again and not listed ready yet), 'readiness' (USB debugging
 * off), 'phone' (wedged, or flapped and not listed yet), 'cloud' (the cloud refuses it, or took no report since one
 * failed: nobody books a phone through a cloud that does not hear the host), or 'carry' (out because
 * the cloud does not hold it AVAILABLE: just plugged or freed and not reported yet, or quarantined), blamed on
 * what took it out last.
 */
const life: Array<{ at: number; of: Map<string, string> }> = [];
let living = true;
/** The attempt whose loops run: an earlier attempt's, asleep when a retry begins, end at their next turn. */
let attempt = 0;
/** What the soak did to each phone and when (ms since its attempt began): a phone not whole at the end is named with them. */
const history = new Map<string, string[]>();
/** adb's list at the last sample (undefined: adb did not answer), and when it was asked for (wall ms). */
let listed: Map<string, string> | undefined;
let listedAt = 0;
/**
 * When the soak last took each phone off adb's list or brought it back (a flap, a plug, its debugging, an adb restart):
 * a list asked for before that does not say it is ready.
 */
const touchedAt = new Map<string, number>();
async function sampleLife(): Promise<void> {
  const askedAt = Date.now();
  const list = await adb.devices().then(
    (es) => new Map(es.map((e) => [e.serial, e.state])),
    () => undefined,
  );
  // A list the tracker pushed while this one was asked for is newer.
  if (askedAt > listedAt) [listed, listedAt] = [list, askedAt];
  recordLife();
}
/** adb's list as adb pushes it at each change (host:track-devices, as the agent reads it), opened again after a restart. */
async function trackLife(mine: number): Promise<void> {
  while (living && attempt === mine) {
    const tracker = trackDevices(adb.port, (es) => {
      if (!living || attempt !== mine) return;
      [listed, listedAt] = [new Map(es.map((e) => [e.serial, e.state])), Date.now()];
      recordLife();
    });
    stopTracking = tracker.close;
    await tracker.ended;
    await sleep(100);
  }
}
let stopTracking = (): void => undefined;
/**
 * The truth now, from adb's last list and what the soak and the cloud double did since: at each sample, and as the
 * soak acts and the cloud decides (both in this process, so dated as they happen; a loaded soak samples adb's list
 * late, 0.85 s apart once, and a truth dated only by the samples was that much behind the cloud's word for every phone).
 */
function recordLife(): void {
  if (listedAt === 0) return;
  // The adb server died on its own (Debian's adb now and then dies of SIGSEGV: test/sim/adb-server.ts) and is not up
  // again: as in a restart, the phones are out on adb until it lists them again, as the agent rightly counts them (CI at
  // e7cc722e: a truth that did not know of the crash blamed that time on the cloud, 89.8 % of it right).
  if (adb.crash !== undefined)
    for (const serial of plugged.keys())
      if (!debugOff.has(serial)) {
        lostToRestart.add(serial);
        touchedAt.set(serial, Date.now());
      }
  const stored = new Map(cloud.devices().map((d) => [d.info.udid, d.isOnline ? d.info.status : 'OFFLINE']));
  const of = new Map<string, string>();
  for (const serial of [...plugged.keys(), ...unplugged.keys()]) {
    const device = plugged.get(serial);
    const ready = device !== undefined && listedAt > (touchedAt.get(serial) ?? -Infinity) && listed?.get(device.serial) === 'device';
    if (ready && !restarting) lostToRestart.delete(serial);
    if (ready) returning.delete(serial);
    const cause =
      device === undefined
        ? 'port'
        : debugOff.has(serial)
          ? 'readiness'
          : restarting || listed === undefined || lostToRestart.has(serial)
            ? 'adb'
            : returning.has(serial) && !ready
              ? returning.get(serial)!
              : wedged.has(serial) || !ready
                ? 'phone'
                : refusedAt(serial, Date.now())
                  ? 'cloud'
                  : stored.get(serial) !== 'AVAILABLE'
                    ? 'carry'
                    : 'in';
    of.set(serial, cause);
  }
  life.push({ at: Date.now(), of });
}
/**
 * What the agent shows of each phone's in-service state (its page's data), sampled beside the truth: for a phone off
 * the bound, its stretches are printed beside the truth's, so that a failing run says where the two parted.
 */
const shown: Array<{ at: number; of: Map<string, string> }> = [];
async function sampleShown(): Promise<void> {
  if (!statusUrl) return;
  const page = await get('/api/devices').then(
    (r) => JSON.parse(r.text) as { rows: Array<{ udid?: string }>; more: Array<{ inService?: { state: string; layer?: string } }> },
    () => undefined,
  );
  if (!page) return;
  const of = new Map<string, string>();
  page.rows.forEach((row, i) => {
    const s = page.more[i]?.inService;
    if (row.udid && s) of.set(row.udid, s.state === 'in_service' ? 'in' : (s.layer ?? s.state));
  });
  shown.push({ at: Date.now(), of });
}
/** A phone's stretches in samples, as "+seconds state" at each change. */
function stretches(samples: ReadonlyArray<{ at: number; of: Map<string, string> }>, serial: string, t0: number): string {
  const out: string[] = [];
  let last: string | undefined;
  for (const { at, of } of samples) {
    const now = of.get(serial);
    if (now === undefined || now === last) continue;
    out.push(`+${((at - t0) / 1000).toFixed(1)} ${now}`);
    last = now;
  }
  return out.join(', ');
}

async function plug(serial: string): Promise<void> {
  let device = unplugged.get(serial);
  if (device) {
    unplugged.delete(serial);
    await device.replug();
  } else {
    device = new SimDevice({ profile: serial === ODD ? oddProfile(serial) : withSerial(profile, serial) });
    await device.start();
  }
  plugged.set(serial, device);
  returning.set(serial, 'port');
  touchedAt.set(serial, Date.now());
  proxy.usbPaths.set(device.serial, portOf(serial));
  onPort(serial);
  await adb.connect(device.port, { wait: false }).catch(() => undefined);
}

async function unplug(serial: string): Promise<void> {
  const device = plugged.get(serial);
  if (!device) return;
  plugged.delete(serial);
  debugOff.delete(serial);
  unplugged.set(serial, device);
  device.wedge(false);
  wedged.delete(serial);
  recordLife();
  await device.unplug();
  offPort(serial);
  await adb.disconnect(device.port).catch(() => undefined);
}

/**
 * USB debugging off (an OS update does it) or on again: adb loses or finds
 * the phone, its port keeps it throughout. Off, the phone speaks no adb: it
 * refuses connections, as well as adb dropping it. A disconnect alone lost
 * to a connect still in flight (the adb restart's, 97 ms before; CI42), and
 * adb listed the phone again.
 */
async function debugging(serial: string, on: boolean): Promise<void> {
  const device = plugged.get(serial);
  if (!device) return;
  if (on) {
    debugOff.delete(serial);
    returning.set(serial, 'readiness');
    touchedAt.set(serial, Date.now());
    await device.replug();
    await adb.connect(device.port, { wait: false }).catch(() => undefined);
  } else {
    debugOff.set(serial, Date.now());
    device.wedge(false);
    wedged.delete(serial);
    recordLife();
    await device.unplug();
    await adb.disconnect(device.port).catch(() => undefined);
  }
}

async function get(path: string, timeoutMs = 3_000): Promise<{ status: number; text: string }> {
  const res = await fetch(statusUrl + path, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, text: await res.text() };
}

/**
 * Follows a process while something waits on it: its CPU seconds, the states
 * /proc says it was in (every 250 ms), and the machine's load at the end.
 */
function watchProcess(pid: number): { stop(): string } {
  const stateOf = (): string => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
    } catch {
      return 'gone';
    }
  };
  const cpu = (): number => {
    try {
      return procSample(pid).cpuSeconds;
    } catch {
      return NaN;
    }
  };
  const states: string[] = [stateOf()];
  const cpuBefore = cpu();
  const timer = setInterval(() => states.push(stateOf()), 250);
  return {
    stop: () => {
      clearInterval(timer);
      states.push(stateOf());
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      return `the agent used ${(cpu() - cpuBefore).toFixed(2)} CPU s, its states ${states.join('')} (R running, S waiting, D on the disk), load ${load}`;
    },
  };
}

/** The soak's world: the adb server with 30 phones on it and their ports, the cloud, the truth's samplers and the agent. */
async function build(): Promise<void> {
  const mine = attempt;
  await adb.start();
  proxy = new AdbProxy({ targetPort: adb.port });
  await proxy.start();
  await cloud.start();
  cloud.onDecided = () => {
    if (living) recordLife();
  };
  for (let i = 0; i < DEVICES; i++) await plug(`CHAOS${String(i).padStart(3, '0')}`);
  await adb.waitForStates(new Map([...plugged.values()].map((d) => [d.serial, 'device'])), 60_000);
  void trackLife(mine);
  void (async () => {
    while (living && attempt === mine) {
      await sampleLife();
      await sleep(250);
    }
  })();
  void (async () => {
    while (living && attempt === mine) {
      await sampleShown();
      await sleep(1_000);
    }
  })();
  const env = daemonEnv(adb.env, cloud, {
    ...proxy.env,
    DEVICE_AGENT_SCHEDULE: '*/20 * * * * *',
    DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: String(PROBE_MS / 1000),
    DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '5',
    DEVICE_AGENT_RECONCILE_SECONDS: '5',
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_USB_SYSFS_ROOT: sysfs,
    DEVICE_AGENT_USB_KERNEL_LOG: kernelLog,
  });
  stateDir = env.DEVICE_AGENT_STATE_DIR!;
  agent = startAgent(['run'], env);
  const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 30_000);
  statusUrl = `http://${String(line.listen)}`;
  // The start, before any fault: 30 first inventories on a 10 s probe deadline. Alone it takes
  // about 6 s; in one CI run, with the other two soaks and a core's worth of other work beside
  // it, 13 reports in 60 s had not yet carried all 30 (each phone left out until its identity
  // arrives, issue 42). What the soak bounds starts after this.
  await cloud
    .waitForPut((r) => r.answer?.status === 200 && devicesOf(r).length === DEVICES, 150_000)
    .catch(async (e: unknown) => {
      // Which phones the last report left out, what adb lists and the agent's last lines naming each:
      // a start that failed in CI said only how many reports went out.
      const last = cloud.putRequests().findLast((r) => r.answer?.status === 200);
      const missing = [...plugged].filter(([udid]) => !last || !devicesOf(last).some((x) => x.udid === udid));
      const listed = await adb.devices().catch((err: unknown) => String(err));
      const about = (words: string[]) => agent.logs().filter((l) => words.some((w) => JSON.stringify(l).includes(w)));
      for (const [udid, d] of missing)
        console.log(`chaos start: ${udid} (${d.serial}) not in the last report; its last lines ${JSON.stringify(about([udid, d.serial]).slice(-10))}`);
      console.log(`chaos start: adb lists ${JSON.stringify(listed)}`);
      throw e;
    });
}

/** The world torn down, and the truth's record with it: what a retry starts from. */
async function tear(): Promise<void> {
  living = false;
  stopTracking();
  await agent?.stop('SIGKILL').catch(() => undefined);
  for (const d of [...plugged.values(), ...unplugged.values()]) await d.stop();
  await proxy?.stop();
  await adb.stop();
  await cloud.stop();
}

beforeAll(build, 210_000);

afterAll(async () => {
  await tear();
  markChaosOver();
  rmSync(usbDir, { recursive: true, force: true });
}, 60_000);

/**
 * A retry (HARNESS_ADB_DIED: Debian's adb died on its own and the attempt failed) starts over in a new world: the
 * first attempt's agent is stopped (the test stops it), and its phones, quarantines and truth would carry over.
 */
async function buildAgain(): Promise<void> {
  console.log('chaos: a retry after the adb server died: the world built again');
  await tear();
  attempt++;
  for (const x of [plugged, unplugged, debugOff, returning, lostToRestart, history, touchedAt, wedged]) x.clear();
  for (const x of [refusals, life, shown]) x.length = 0;
  [restarting, living, listed, listedAt, adbRestarts, statusUrl, kmsgSeq] = [false, true, undefined, 0, 0, '', 1];
  rmSync(sysfs, { recursive: true, force: true });
  mkdirSync(sysfs);
  writeFileSync(kernelLog, '');
  adb = new AdbServer();
  cloud = new CloudDouble();
  await build();
}
let attempted = false;

/**
 * How far a control phone's share may be from the truth, over a window of `seconds`: 1 point, and for each adb
 * restart (each takes it out of service briefly) its two edges as each side sees them, 0.25 s apart at most: the
 * agent looks as its adb connection ends and comes back, the soak reads adb's list as adb pushes it (loaded, it may
 * read it late) and dates the restart as it begins.
 */
const controlBound = (seconds: number): number => 0.01 + (adbRestarts * 2 * 250) / 1000 / seconds;
let adbRestarts = 0;

/** The report whose answer is the cloud's word at `at`: the last decided by then, or never decided and sent by then. */
function lastWord(puts: readonly RecordedRequest[], at: number): RecordedRequest | undefined {
  const when = (r: RecordedRequest) => r.decidedAt ?? r.receivedAt;
  let word: RecordedRequest | undefined;
  for (const r of puts) if (when(r) <= at && (word === undefined || when(r) >= when(word))) word = r;
  return word;
}

/**
 * A phone's true life from `from` to `to` (wall ms), from the samples: its seconds in service, and out by layer. A
 * phone back here (in service, or out only for the cloud's word: 'carry') is out for the cloud while the last report
 * the cloud decided on did not reach it, whenever that report went out: nobody books a phone through a cloud that
 * does not hear the host (docs/operations/availability.md, as the agent counts it and the virtual-time bed's truth
 * in test/features/availability/life.ts). Otherwise a 'carry' second is blamed on what took it out last, the cloud's
 * deafness included (as that bed's truth blames it: the fault that ended last), and on the phone before anything did
 * (its first report).
 */
function lifeOf(serial: string, from: number, to: number): { in: number; out: Map<string, number> } {
  let seconds = 0;
  const out = new Map<string, number>();
  let cause = 'phone';
  const puts = cloud.putRequests();
  for (let i = 0; i < life.length; i++) {
    const at = life[i]!.at;
    let now = life[i]!.of.get(serial);
    if (now === undefined) continue;
    // The cloud does not hear the host: the last report it decided on was not taken (a 503, a 429, a 422, a reset), until
    // one is. A report in flight changes nothing until the cloud decides (a slow cloud's, stored when it answers); one
    // never answered failed from when it was sent, as the agent counts it.
    if (now === 'in' || now === 'carry') {
      const word = lastWord(puts, at);
      // Out for that is out for the cloud, and what took the phone out last if it stays out for the cloud's word after.
      if (word && !took(word)) now = cause = 'cloud';
      else if (now === 'carry') now = cause;
    } else cause = now;
    const start = Math.max(from, at);
    const end = Math.min(to, life[i + 1]?.at ?? to);
    if (!(end > start)) continue;
    if (now === 'in') seconds += (end - start) / 1000;
    else out.set(now, (out.get(now) ?? 0) + (end - start) / 1000);
  }
  return { in: seconds, out };
}

/**
 * A probe's deadline. 10 s, not 3: on a 2-vCPU AMD host at 2.1 GHz the 30 inventories each schedule asks at once, with
 * the phones simulated in this process, took over 3 s, quiet or not; the agent then rightly called the host starved,
 * for time this soak's truth (which knows only its own faults) counts in service: 4 points off on a quiet run, 0.04
 * with 10 s. A wedged phone is seen 7 s later; its share is not bounded here (below).
 */
const PROBE_MS = 10_000;
/** After the next scheduled report is due: its probes' deadline, a request, and slack for a loaded machine. */
const REPORT_MS = PROBE_MS + 5_000 + 7_000;

/**
 * The first report the cloud took from `from` (wall ms) on in which every phone is whole. Its bound
 * is the next scheduled report (20 s) and REPORT_MS, unless a report meanwhile shows a phone the
 * agent asks less and less often because its inventories failed in a row (README): one wedged until
 * the calm may be asked again 40 s or more later, which a fixed 35 s did not allow for. Such a phone,
 * shown with N tries, is asked again at most PROBE_RETRY's bound for N + 1 tries after that report
 * (N + 1: an ask running then may fail once more, within its deadline), and a report carries it
 * when a token of the budget is free (6 s) and REPORT_MS later. Each report that is not whole moves
 * the bound to what it says.
 */
async function wholeReport(from: number, whole: (r: RecordedRequest) => boolean): Promise<RecordedRequest> {
  let bound = from + 20_000 + REPORT_MS;
  const why: string[] = [];
  for (let seen = from; ;) {
    const next = await cloud
      .waitForPut((r) => r.receivedAt >= seen, Math.max(0, bound - Date.now()))
      .catch((e: unknown) => {
        throw new Error(`${String(e)}; bound ${bound - from} ms after ${new Date(from).toISOString()}${why.length ? ` (${why.join('; ')})` : ''}`);
      });
    if (whole(next)) {
      console.log(`chaos: every phone whole at +${next.receivedAt - from} ms, bound ${bound - from} ms${why.length ? ` (${why.join('; ')})` : ''}`);
      return next;
    }
    seen = next.receivedAt + 1;
    for (const d of devicesOf(next)) {
      const tries = /\((\d+) tries;/.exec(d.message ?? '')?.[1];
      if (tries === undefined) continue;
      const askBy = next.receivedAt + PROBE_MS + backoffBound(Number(tries) + 1, PROBE_RETRY) + 6_000 + REPORT_MS;
      if (askBy <= bound) continue;
      bound = askBy;
      why.push(`${d.udid} shown with ${tries} tries at +${next.receivedAt - from} ms`);
    }
  }
}

describe('chaos soak', () => {
  it(
    `${SECONDS} s of plugs, unplugs, flaps, wedges, adb restarts and cloud faults: bounded, live, no ghosts, flat`,
    async () => {
      if (attempted) await buildAgain();
      attempted = true;
      // Seeded, so that a failing run can be replayed with CHAOS_SEED.
      const random = seededRandom(SEED);
      const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];
      const serials = [...plugged.keys()].filter((s) => !CONTROL.has(s));
      const counts: Record<string, number> = {};
      const slowHealth: string[] = [];
      const samples: Array<{ fds: number; rss: number }> = [];
      const cloudFaults: Array<() => void> = [
        () => cloud.failNext({ status: 503, times: 3, method: 'PUT' }),
        () => cloud.failNext({ status: 429, retryAfter: 2, method: 'PUT' }),
        () => cloud.failNext({ status: 422, method: 'PUT' }),
        () => cloud.resetConnectionNext(2, { method: 'PUT' }),
        () => cloud.answerHtmlNext(1, { method: 'PUT' }),
        () => cloud.answerGarbageNext(1, undefined, { method: 'PUT' }),
        () => cloud.delayNext(4_000, 1, { method: 'PUT' }),
        () => {
          // A refusal of the phone's own: a failure quarantine counts.
          const refused = pick(serials)!;
          did(refused, 'refused');
          refusals.push({ serial: refused, from: Date.now() });
          cloud.failDevices([{ udid: refused, message: 'missing required capability: platformVersion' }]);
        },
        () => {
          for (const r of refusals) r.until ??= Date.now();
          cloud.clearFailedDevices();
        },
        () => {
          const round = counts.cloud ?? 0;
          cloud.answerFailedDevices(Array.from({ length: 5_000 }, (_, i) => ({ udid: `ELSEWHERE-${round}-${i}`, message: 'device belongs to another node' })));
        },
        () => cloud.answerFailedDevices([]),
      ];
      const signals: Array<() => void> = [
        () => {
          for (let i = 0; i < 20; i++) agent.child.kill('SIGHUP');
        },
        () => agent.child.kill('SIGUSR1'),
        () => agent.child.kill('SIGUSR2'),
      ];

      const t0 = Date.now();
      const did = (serial: string, what: string) => history.set(serial, [...(history.get(serial) ?? []), `${what} +${Date.now() - t0} ms`]);
      const restarts: Array<number | string> = [];
      const end = t0 + SECONDS * 1000;
      let nextRestart = t0 + 30_000;
      let nextHealth = t0;
      while (Date.now() < end) {
        const now = Date.now();
        if (now >= nextHealth) {
          nextHealth = now + 2_000;
          const started = Date.now();
          // A hang, not latency: in CI the three soaks share two cores with their simulators, and this
          // round's clean-clone runs saw /healthz take 2.1-3.1 s there (1.5 s was the bound; alone it holds).
          // How fast the agent answers is the benchmark's to show (docs/design/tooling.md, "Time in tests").
          // What the agent did while it was asked, so that a slow answer names its culprit (CI12's 5,044 ms did not):
          // CPU spent on its own work, a sleep on the disk (D), or a machine that did not run it (R, little CPU).
          const watch = watchProcess(agent.child.pid!);
          const failed = await get('/healthz', 8_000).then(
            () => undefined,
            (e: unknown) => String(e),
          );
          const seen = watch.stop();
          if (failed !== undefined || Date.now() - started > 5_000)
            slowHealth.push(
              `${failed ?? `/healthz took ${Date.now() - started} ms`}; meanwhile ${seen}; its last lines ${JSON.stringify(agent.logs().slice(-5))}`,
            );
          samples.push({ fds: procSample(agent.child.pid!).fds, rss: procSample(agent.child.pid!).rssBytes });
        }
        if (now >= nextRestart) {
          nextRestart = now + 30_000;
          counts.restart = (counts.restart ?? 0) + 1;
          restarts.push(Date.now() - t0);
          restarting = true;
          adbRestarts++;
          for (const serial of plugged.keys()) if (!debugOff.has(serial)) lostToRestart.add(serial);
          for (const serial of plugged.keys()) touchedAt.set(serial, Date.now());
          // The truth dates the restart as it begins: the next sample may come only after adb lists a phone again
          // (a loaded machine), and a phone whose restart the samples missed was blamed on what took it out before.
          const before = life.at(-1)?.of;
          if (before) life.push({ at: Date.now(), of: new Map([...before].map(([serial, cause]) => [serial, lostToRestart.has(serial) ? 'adb' : cause])) });
          await adb.restart({ reconnect: false });
          // The new server is up: from here each phone is back for adb when it lists it ready, though connecting
          // all of them takes seconds on a loaded machine (8.7 s once in CI). A truth that waited for the last
          // kept a phone listed early out on adb, which the agent then rightly counted as what came next (the cloud's).
          restarting = false;
          const up = Date.now() - t0;
          // adb 29 forgets connected devices on a restart: connect the plugged ones again.
          for (const [serial, d] of plugged) if (!debugOff.has(serial)) await adb.connect(d.port, { wait: false }).catch(() => undefined);
          restarts[restarts.length - 1] = `+${restarts.at(-1)} ms, up at +${up}, all connected at +${Date.now() - t0}`;
          continue;
        }
        const r = random();
        const serial = pick(serials)!;
        let action: string;
        if (r < 0.2) {
          // The odd phone stays, so that the last report shows its text cleaned.
          action = plugged.has(serial) ? (serial === ODD ? 'quiet' : 'unplug') : 'plug';
          if (action === 'unplug') await unplug(serial);
          else if (action === 'plug') await plug(serial);
        } else if (r < 0.45) {
          action = 'flap';
          plugged.get(serial)?.disconnect();
          touchedAt.set(serial, Date.now());
        } else if (r < 0.58) {
          action = 'wedge';
          const on = random() < 0.5;
          plugged.get(serial)?.wedge(on);
          if (plugged.has(serial)) {
            did(serial, on ? 'wedged' : 'freed');
            if (on) wedged.add(serial);
            else wedged.delete(serial);
          }
        } else if (r < 0.73) {
          action = 'cloud';
          pick(cloudFaults)!();
        } else if (r < 0.8) {
          action = 'signal';
          pick(signals)!();
        } else if (r < 0.83) {
          // The log reader stalls for a while (a paused pager, a slow log driver).
          action = 'stall-logs';
          agent.child.stdout?.pause();
          setTimeout(() => agent.child.stdout?.resume(), 2_000);
        } else if (r < 0.87) {
          // USB debugging off on a phone the cloud has been shown (so the agent knows it), or on again.
          action = debugOff.has(serial) ? 'debug-on' : 'debug-off';
          if (action === 'debug-on') await debugging(serial, true);
          else if (serial !== ODD && plugged.has(serial) && cloud.devices().some((d) => d.info.udid === serial && d.isOnline)) await debugging(serial, false);
          else action = 'quiet';
        } else if (r < 0.9) {
          // A port failing to enumerate (a worn cable, a flaky hub port): the kernel says so.
          action = 'usb-error';
          kernel(`usb ${portOf(serial)}: device descriptor read/64, error -71`);
          did(serial, 'usb-error');
        } else {
          action = 'quiet';
        }
        counts[action] = (counts[action] ?? 0) + 1;
        if (living) recordLife();
        if (['plug', 'unplug', 'flap', 'debug-on', 'debug-off'].includes(action)) did(serial, action);
        await sleep(100 + random() * 600);
      }

      // The faults stop: every phone still plugged answers again, the cloud behaves.
      cloud.resetFaults();
      for (const r of refusals) r.until ??= Date.now();
      agent.child.stdout?.resume();
      for (const d of plugged.values()) d.wedge(false);
      wedged.clear();
      const onAdb = [...plugged].filter(([serial]) => !debugOff.has(serial));
      await adb.waitForStates(new Map(onAdb.map(([, d]) => [d.serial, 'device'])), 60_000);
      const calm = Date.now();
      const ready = onAdb.map(([serial]) => serial).sort();
      const off = [...debugOff.keys()].sort();
      const present = [...plugged.keys()].sort();
      // Quarantine (issue 63): a phone the soak wedged, flapped or failed again and again may be taken out of service,
      // and then goes out UNAVAILABLE with why; one it never touched must never be.
      const quarantinedIn = (r: RecordedRequest, u: string) => /quarantined since/.test(devicesOf(r).find((d) => d.udid === u)?.message ?? '');
      const faulted = (u: string) => (history.get(u) ?? []).some((h) => /^(wedged|flap|debug-off|usb-error|refused)/.test(h));
      const outOfService = (r: RecordedRequest, u: string) => faulted(u) && quarantinedIn(r, u);
      // No healthy phone (one the soak never wedged, flapped, turned debugging off on, failed on its port or had refused) is
      // quarantined, in any report the cloud took: plugs and unplugs are no failures of a phone. Checked before the wait
      // for a whole report (which a healthy phone out of service would hold up) and again at the end.
      const quarantinedHealthy = () => {
        const quarantined = [
          ...new Set(
            cloud.putRequests().flatMap((r) =>
              devicesOf(r)
                .filter((d) => quarantinedIn(r, d.udid))
                .map((d) => d.udid),
            ),
          ),
        ].sort();
        if (quarantined.length) console.log(`chaos: quarantined ${JSON.stringify(quarantined.map((u) => ({ [u]: history.get(u) ?? [] })))}`);
        return quarantined.filter((u) => !faulted(u));
      };
      // The control group, which the soak never faults, is never quarantined in any report the cloud took: a healthy phone
      // that is sure to be there (the soak's other phones may all have been faulted by the end).
      const controlQuarantined = () => [...CONTROL].filter((u) => cloud.putRequests().some((r) => quarantinedIn(r, u)));
      expect(controlQuarantined(), 'control group quarantined').toEqual([]);
      expect(quarantinedHealthy()).toEqual([]);
      // Every phone on adb whole and AVAILABLE; every phone off adb but on its port UNAVAILABLE, said why.
      const whole = (r: RecordedRequest) =>
        r.answer?.status === 200 &&
        ready.every(
          (u) => outOfService(r, u) || devicesOf(r).some((d) => d.udid === u && d.state === 'device' && d.modelName !== undefined && d.status === 'AVAILABLE'),
        ) &&
        off.every((u) =>
          devicesOf(r).some((d) => d.udid === u && d.status === 'UNAVAILABLE' && (outOfService(r, u) || /adb does not list it/.test(d.message ?? ''))),
        );
      // Within the bound (wholeReport). A miss names what the last delivered report said of each phone it waited for (CI15 said only the PUTs' answers).
      const notWhole = (): string[] => {
        const last = cloud.putRequests().findLast((r) => r.receivedAt >= calm && r.answer?.status === 200);
        if (!last) return [`no report delivered since the calm, ${Date.now() - calm} ms`];
        return [...ready, ...off].flatMap((u) => {
          const d = devicesOf(last).find((x) => x.udid === u);
          const fine = ready.includes(u)
            ? outOfService(last, u) || (d?.state === 'device' && d.modelName !== undefined && d.status === 'AVAILABLE')
            : d?.status === 'UNAVAILABLE' && (outOfService(last, u) || /adb does not list it/.test(d.message ?? ''));
          const lines = agent.logs().filter((l) => JSON.stringify(l).includes(u));
          return fine
            ? []
            : [
                `${u} (${ready.includes(u) ? 'on adb' : 'off adb, on its port'}): ${JSON.stringify(d && { state: d.state, status: d.status, message: d.message })}; ` +
                  `the soak did ${JSON.stringify(history.get(u) ?? [])}, adb restarted at ${JSON.stringify(restarts)}, calm at +${calm - t0} ms; its last lines ${JSON.stringify(lines.slice(-4))}`,
              ];
        });
      };
      const first = await wholeReport(calm, whole).catch((e: unknown) => {
        for (const line of notWhole()) console.log(`chaos end: ${line}`);
        throw e;
      });
      // The first report the cloud took after the calm may have been composed before it: a body
      // waits out the cloud's 503s and 429s before a 200, and a collect waits out wedged phones'
      // probe deadlines, so a phone unplugged meanwhile may still be in it. The promise is that the
      // cloud does not keep it: the next report, composed after that one ended (reports never
      // overlap), holds no phone that is gone. SIGHUP asks for it now rather than at the schedule.
      agent.child.kill('SIGHUP');
      const final = await wholeReport(first.receivedAt + 1, whole);
      const reportedPresent = devicesOf(final)
        .filter((d) => d.status !== 'UNPLUGGED')
        .map((d) => d.udid)
        .sort();
      // No ghost: a phone that is gone is not shown as present. A ghost is shown
      // with what each report said of it, what adb lists and the agent's lines naming it.
      const ghosts = reportedPresent.filter((u) => !present.includes(u));
      const stale = devicesOf(first).filter((d) => d.status !== 'UNPLUGGED' && !present.includes(d.udid));
      if (stale.length > 0)
        console.log(
          `chaos: the first report after the calm still held ${stale.map((d) => d.udid).join(', ')}; composed before the calm, or kept: the next report decides`,
        );
      if (ghosts.length > 0) {
        const listed = await adb.devices().catch((e: unknown) => String(e));
        const about = (u: string) => agent.logs().filter((l) => JSON.stringify(l).includes(u));
        const entry = (r: RecordedRequest, u: string) => {
          const d = devicesOf(r).find((x) => x.udid === u);
          return JSON.stringify(d && { state: d.state, status: d.status, message: d.message });
        };
        for (const u of ghosts)
          console.log(
            `chaos: ghost ${u}: in the first report ${entry(first, u)}, in the next ${entry(final, u)}; ` +
              `adb lists ${JSON.stringify(listed)}; its last lines ${JSON.stringify(about(u).slice(-15))}`,
          );
      }
      expect(reportedPresent).toEqual(present);
      for (const d of cloud.devices()) {
        if (!present.includes(d.info.udid)) expect(d.isOnline, `${d.info.udid} is gone`).toBe(false);
      }

      // The PUT rate stayed bounded. Every report starts at least 5 s after the
      // previous one ended (issue 36), and one report may resend its PUT once on
      // a socket closed under it; a storm is dozens a second.
      const puts = cloud.putRequests().filter((p) => p.receivedAt >= t0);
      let worst = 0;
      for (const p of puts) worst = Math.max(worst, puts.filter((q) => q.receivedAt >= p.receivedAt && q.receivedAt < p.receivedAt + 10_000).length);
      const health = await get('/healthz');
      const metrics = parseMetrics((await get('/metrics')).text);
      console.log(
        `chaos: seed ${SEED}, ${SECONDS} s, actions ${JSON.stringify(counts)}, ${off.length} phones off adb on their ports at the end, ${puts.length} PUTs (worst 10 s window: ${worst}), ` +
          `fds ${samples.map((s) => s.fds).join(' ')}, RSS MiB ${samples.map((s) => (s.rss / 2 ** 20).toFixed(0)).join(' ')}`,
      );
      expect(worst).toBeLessThanOrEqual(20);
      expect(puts.length).toBeLessThan(SECONDS);

      // The phone with odd properties is reported, its text cleaned: the double refuses \u0000.
      expect(devicesOf(final).find((d) => d.udid === ODD)?.modelName).toBeDefined();
      expect(final.rawBody).not.toMatch(/\\u0000|\\u001b|\\u0007/);
      // A stray SIGUSR1 opened no inspector.
      expect(agent.stderr).not.toMatch(/Debugger listening/);
      // Bounded logs: no kind of line (digits aside) more than 11 times in any 60 s;
      // 'report delivered' is one per report, bounded by the PUT rate above.
      const byKind = new Map<string, number[]>();
      for (const l of agent.logs()) {
        if (l.msg === 'report delivered' || typeof l.time !== 'string') continue;
        const kind = String(l.msg).replace(/\d+/g, '#');
        byKind.set(kind, [...(byKind.get(kind) ?? []), Date.parse(l.time)]);
      }
      const floods: string[] = [];
      for (const [kind, times] of byKind) {
        times.sort((a, b) => a - b);
        for (let i = 0, j = 0; i < times.length; i++) {
          while (times[i]! - times[j]! >= 60_000) j++;
          if (i - j + 1 > 11) {
            floods.push(`${i - j + 1}x ${kind.slice(0, 120)}`);
            break;
          }
        }
      }
      expect(controlQuarantined(), 'control group quarantined').toEqual([]);
      expect(quarantinedHealthy()).toEqual([]);
      expect(floods).toEqual([]);

      // Nothing hung: the status endpoint always answered, the agent is alive and healthy.
      expect(slowHealth).toEqual([]);
      expect(agent.child.exitCode).toBeNull();
      expect(health.status).toBe(200);
      expect(metrics.get('device_agent_adb_tracker_up')).toBe(1);
      expect(metrics.get('device_agent_devices{state="device"}')).toBe(ready.length);
      // A phone off adb but on its port was never sent UNPLUGGED while it stayed so: each report the cloud took
      // since was composed after the one that showed it on adb (reports never overlap; it was online then).
      for (const [serial, since] of debugOff) {
        const taken = cloud.putRequests().filter((q) => q.receivedAt > since && q.answer?.status === 200);
        const gone = taken.find((r) => devicesOf(r).find((d) => d.udid === serial)?.status === 'UNPLUGGED');
        // Not reproduced alone (CI's run on 0a8f6f59, after a retry): what the reports said of it and the agent's lines naming it.
        const said = () =>
          JSON.stringify({
            since: new Date(since).toISOString(),
            did: history.get(serial),
            reports: taken.map((r) => [new Date(r.receivedAt).toISOString(), devicesOf(r).find((d) => d.udid === serial)?.message ?? 'left out']),
            lines: agent
              .logs()
              .filter((l) => JSON.stringify(l).includes(serial))
              .slice(-20),
          });
        expect(gone, `${serial} off adb, on its port, sent UNPLUGGED: ${gone ? said() : ''}`).toBeUndefined();
      }

      // Flat: descriptors and RSS of the last third against the middle third (the
      // first third is warm-up), medians so that a sample landing mid-report does not decide.
      const third = Math.floor(samples.length / 3);
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const mid = samples.slice(third, 2 * third);
      const last = samples.slice(2 * third);
      expect(median(last.map((s) => s.fds)) - median(mid.map((s) => s.fds))).toBeLessThanOrEqual(10);
      expect(median(last.map((s) => s.rss)) - median(mid.map((s) => s.rss))).toBeLessThan(25 * 2 ** 20);

      // In-service time against the truth. Stopped, the agent writes what it counted of each phone (availability.json):
      // its seconds by state and layer, up to creditedAt, from the moment it first saw the phone.
      const phonesDump: Record<string, unknown> = {};
      if (process.env.CHAOS_DUMP)
        for (const u of [...plugged.keys(), ...unplugged.keys()]) phonesDump[u] = await get(`/api/phone?udid=${u}`).then((r) => r.text, String);
      await agent.stop('SIGTERM');
      living = false;
      await sampleLife();
      if (process.env.CHAOS_DUMP)
        writeFileSync(
          process.env.CHAOS_DUMP,
          JSON.stringify({
            t0,
            phonesDump,
            logs: agent.logs(),
            life: life.map((l) => ({ at: l.at, of: Object.fromEntries(l.of) })),
            shown: shown.map((l) => ({ at: l.at, of: Object.fromEntries(l.of) })),
            puts: cloud.putRequests().map((r) => ({
              receivedAt: r.receivedAt,
              decidedAt: r.decidedAt,
              answer: r.answer,
              devices: ((r.body as { devices?: Array<{ udid: string; status: string; isOnline?: boolean }> })?.devices ?? []).map((d) => [d.udid, d.status]),
            })),
          }),
        );
      const kept = clockFrom(readFileSync(join(stateDir, AVAILABILITY_FILE), 'utf8'));
      expect(kept).toBeDefined();
      // Scored twice: every phone, and the phones the soak never wedged. A wedged shell is seen only by the phone's next
      // inventory (on the schedule, 20 s here): until then the agent counts it in service, and a wedge undone before
      // it is never seen at all; the backdating halves the error on average, over 90 s it stays tens of points for such
      // a phone. What the agent hears as it happens (adb's list, the kernel, the cloud's answers) it must count as it
      // happens, and the virtual-time bed (life.test.ts) holds every kind, wedges too, to the same bound over hours.
      const wedgedEver = (u: string) => (history.get(u) ?? []).some((h) => h.startsWith('wedged'));
      const score = () => ({ truthIn: 0, truthAll: 0, agentIn: 0, agentAll: 0, phones: 0, out: 0, matched: 0 });
      const everyPhone = score();
      const seen = score();
      let worstPhone = { diff: 0, serial: '' };
      const rows: string[] = [];
      const offBound: string[] = [];
      for (const p of kept!.phones) {
        const agentSeconds = Object.values(p.tally.totals).reduce((a, b) => a + b, 0);
        const to = p.creditedAt;
        const from = to - agentSeconds * 1000;
        const truth = lifeOf(p.udid, from, to);
        const agentOut = new Map<string, number>();
        for (const [slot, seconds] of Object.entries(p.tally.totals))
          if (slot !== IN_SERVICE) agentOut.set(partsOf(slot).layer!, (agentOut.get(partsOf(slot).layer!) ?? 0) + seconds);
        const agentIn = p.tally.totals[IN_SERVICE] ?? 0;
        const truthOut = [...truth.out.values()].reduce((a, b) => a + b, 0);
        // The layers' seconds in common (as life.test.ts counts them, by total rather than by the hour: the run is minutes).
        const common = [...truth.out].reduce((sum, [layer, seconds]) => sum + Math.min(seconds, agentOut.get(layer) ?? 0), 0);
        for (const sc of wedgedEver(p.udid) ? [everyPhone] : [everyPhone, seen]) {
          sc.truthIn += truth.in;
          sc.truthAll += truth.in + truthOut;
          sc.agentIn += agentIn;
          sc.agentAll += agentSeconds;
          sc.phones += 1;
          sc.out += truthOut;
          sc.matched += common;
        }
        const diff = Math.abs(agentIn / agentSeconds - truth.in / (truth.in + truthOut));
        if (diff > worstPhone.diff) worstPhone = { diff, serial: p.udid };
        if (!wedgedEver(p.udid) && diff > controlBound(agentSeconds))
          offBound.push(
            `${p.udid} off by ${(100 * diff).toFixed(2)} points: truth ${stretches(life, p.udid, t0)}; ` +
              `the agent's page ${stretches(shown, p.udid, t0)}; the soak did ${JSON.stringify(history.get(p.udid) ?? [])}`,
          );
        const layers = (m: Map<string, number>) => JSON.stringify(Object.fromEntries([...m].map(([l, x]) => [l, Number(x.toFixed(1))])));
        rows.push(
          `${p.udid}${wedgedEver(p.udid) ? ' (wedged)' : ''}: ${agentSeconds.toFixed(0)} s, truth ${((100 * truth.in) / (truth.in + truthOut)).toFixed(1)}% agent ${((100 * agentIn) / agentSeconds).toFixed(1)}%, ` +
            `out truth ${layers(truth.out)} agent ${layers(agentOut)}; the soak did ${JSON.stringify(history.get(p.udid) ?? [])}`,
        );
      }
      const hostOff = (sc: ReturnType<typeof score>) => Math.abs(sc.agentIn / sc.agentAll - sc.truthIn / sc.truthAll);
      const said = (sc: ReturnType<typeof score>) =>
        `host truth ${((100 * sc.truthIn) / sc.truthAll).toFixed(2)}% agent ${((100 * sc.agentIn) / sc.agentAll).toFixed(2)}% (off by ${(100 * hostOff(sc)).toFixed(2)} points), ` +
        `blame right for ${((100 * sc.matched) / sc.out).toFixed(1)}% of ${sc.out.toFixed(0)} s out`;
      console.log(
        `chaos in service: every phone: ${said(everyPhone)}; the ${seen.phones} phones never wedged: ${said(seen)}; ` +
          `worst phone ${worstPhone.serial} off by ${(100 * worstPhone.diff).toFixed(2)} points; adb restarted at ${JSON.stringify(restarts)}\n  ${rows.join('\n  ')}`,
      );
      expect(kept!.phones.map((p) => p.udid).sort()).toEqual([...plugged.keys(), ...unplugged.keys()].sort());
      // Each phone never wedged (the control group among them) within 1 point and its adb restarts' edges (controlBound),
      // the host over them too, and their time out blamed on the layer the soak injected for at least 95 % of it.
      expect(offBound, 'phones never wedged, in service against the truth').toEqual([]);
      expect(hostOff(seen)).toBeLessThanOrEqual(controlBound(SECONDS));
      expect(seen.matched / seen.out).toBeGreaterThanOrEqual(0.95);
    },
    // The wait for a whole report follows the agent's retries of a phone that failed in a row (wholeReport): minutes at worstPhone.
    (SECONDS + 600) * 1000,
  );
});
