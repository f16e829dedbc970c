// `npm run bench`: the agent's full inventory against N simulated devices
// behind the real adb server, next to the floor on this machine (the same
// script through adbkit, every device at once), plus plug-to-report latency
// and idle CPU of a running daemon. Prints tables; asserts nothing about speed,
// but exits 1 when a recorded profile's periodic cycle misses its budget of
// bytes and commands per phone (measure.ts, CYCLE_BUDGET).
//
// Settings (environment):
//   BENCH_SIZES=0,1,10,50,200   device counts (0 = the agent's fixed start cost)
//   BENCH_ROUNDS=3              rounds per size (median reported)
//   BENCH_SWEEP=N               other probeConcurrency values to run for N>16, comma-separated;
//                               N means all devices at once; 0 for none
//   BENCH_LIVE_N=50             devices for the plug and idle measurements (0 skips)
//   BENCH_PERIOD=1              also measure CPU over one full 60 s schedule period
//   BENCH_KMSG_RATE=20          kernel USB lines a second in the busy-kernel-log idle window (0 skips):
//                               the live daemon follows a file of /dev/kmsg records (usb.kernelLog)
//                               that this appends to, failures and re-enumerations over 16 hub ports
//   BENCH_PROFILE=xiaomi-poco-f6  recorded device profile (test/fixtures/devices)
//   BENCH_AGENT_NODE_OPTIONS=.. NODE_OPTIONS for the agent process (e.g. --max-semi-space-size=2)
//   BENCH_CYCLES_N=50           devices for the per-cycle table (0 skips)
//   BENCH_CYCLES=4              periodic cycles measured after the first inventory
//   BENCH_CYCLES_PROFILE=all    profile of the per-cycle tables; all: every recorded profile
//                               (test/fixtures/devices), the devices taking them in turn
//   BENCH_WATCH_N=60            phones of the status page case: the daemon's CPU with ten clients watching its
//                               rack as the page does (test/bench/watchers.ts; 0 skips)
//   BENCH_OUT=file.json         write the raw results there
import { spawn, execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInventoryScript } from '../../src/platforms/android/inventory/script.js';
import { TIERS } from '../../src/platforms/android/inventory/probes/types.js';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { AgentProcess, baseEnv } from '../e2e/agent-process.js';
import { SimFarm } from '../sim/farm.js';
import { listProfiles, loadProfile, withSerial, type Profile } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import type { FloorInput, FloorOutput } from './floor.js';
import {
  CYCLE_BUDGET,
  machineBusySeconds,
  meanInterval,
  median,
  periodicByProfile,
  procSample,
  scrapeMetrics,
  type ProcSample,
  type ProfileCycle,
} from './measure.js';
import { shippedNodeFlags, shippedNodeOptions } from './shipped.js';
import { benchWatchers, printWatchers, type WatchResult } from './watchers.js';
import { sleep } from '../support/wait.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = findRoot(here);
const bin = join(root, 'bin/device-agent.js');
const floorScript = join(here, 'floor.js');

const sizes = (process.env.BENCH_SIZES ?? '0,1,10,50,200').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const sweep = (process.env.BENCH_SWEEP ?? 'N').split(',').filter((v) => v !== '0' && v !== '');
const liveN = Number(process.env.BENCH_LIVE_N ?? 50);
const measurePeriod = process.env.BENCH_PERIOD !== '0';
const kmsgRate = Number(process.env.BENCH_KMSG_RATE ?? 20);
const DEFAULT_CONCURRENCY = 16;
const agentNodeOptions = nodeOptions(process.env.BENCH_AGENT_NODE_OPTIONS);
const cyclesN = Number(process.env.BENCH_CYCLES_N ?? 50);
const cycleCount = Number(process.env.BENCH_CYCLES ?? 4);
const cyclesProfile = process.env.BENCH_CYCLES_PROFILE ?? 'all';
const watchN = Number(process.env.BENCH_WATCH_N ?? 60);

/** The agent runs as shipped: the systemd unit's NODE_OPTIONS unless told otherwise. */
function nodeOptions(given: string | undefined): string | undefined {
  if (given === 'none') return undefined;
  return given ?? shippedNodeOptions(root);
}

const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'bin/device-agent.js'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`bench: project root not found above ${from}`);
    dir = parent;
  }
  return dir;
}

interface AgentRound {
  /** Device part of the inventory ('inventory collected' debug line). */
  inventoryMs: number;
  /** device_agent_inventory_duration_seconds: devices and Machine in parallel. */
  inventoryMetricMs: number;
  /** Reports that ran inventories before the daemon went quiet: one, or several where the first inventories spread over them. */
  inventories: number;
  /** Shell sessions per device once quiet: one inventory each (a fresh start used to run two: see the README, Performance). */
  sessionsPerDevice: number;
  reported: number;
  /** Reported ready with the fields read from the device (model from getprop). */
  ready: number;
  /** Sessions counted when the first report was delivered (a follow-up may have begun). */
  sessionsMax: number;
  sessionsTotal: number;
  bytesRead: number;
  proc: ProcSample;
  metricsRss: number;
  metricsCpu: number;
}

interface SizeResult {
  n: number;
  floorMs: number[];
  floorBytes: number;
  floorFailures: number;
  /** CPU seconds of the floor process per round, start-up included. */
  floorCpu: number[];
  /** CPU seconds the whole machine was busy during each floor round (simulated devices included). */
  floorMachineCpu: number[];
  agents: Array<{ concurrency: number; rounds: AgentRound[] }>;
}

interface LiveResult {
  n: number;
  plugMs: number[];
  idle?: { seconds: number; cpuSeconds: number; reportsInWindow: number; fds: [number, number]; rss: [number, number] };
  period?: { seconds: number; cpuSeconds: number };
  /** The idle window again while the kernel log gets kmsgRate USB lines a second. */
  busyKernelLog?: { rate: number; lines: number; seconds: number; cpuSeconds: number; reportsInWindow: number };
}

const cloud = new CloudDouble();

function agentEnv(farm: SimFarm, extra: Record<string, string>): Record<string, string> {
  return baseEnv({
    ...farm.env,
    DEVICE_AGENT_BASE_URL: cloud.url,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    DEVICE_AGENT_JITTER_SECONDS: '0',
    // Never during a round: each round is one fresh daemon's start report.
    DEVICE_AGENT_SCHEDULE: '0 0 1 1 *',
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_LOG_LEVEL: 'debug',
    NODE_OPTIONS: agentNodeOptions,
    ...extra,
  });
}

function startAgent(env: Record<string, string>): AgentProcess {
  return new AgentProcess(spawn(process.execPath, [...shippedNodeFlags(root), bin, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

async function statusUrl(agent: AgentProcess): Promise<string> {
  const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 30_000);
  return `http://${String(line.listen)}`;
}

type Body = { devices: Array<{ udid: string; state: string; modelName?: string }> };
const devicesOf = (r: RecordedRequest) => (r.body as Body | undefined)?.devices ?? [];

async function agentRound(farm: SimFarm, concurrency: number): Promise<AgentRound> {
  farm.resetCounts();
  const putsBefore = cloud.putRequests().length;
  const agent = startAgent(agentEnv(farm, { DEVICE_AGENT_PROBE_CONCURRENCY: String(concurrency) }));
  try {
    const url = await statusUrl(agent);
    // The reporter's line (the cloud client logs one without `ms` at debug level).
    const isDelivered = (l: Record<string, unknown>) => l.msg === 'report delivered' && l.ms !== undefined;
    // Measured at the first report that carries every device ready: where inventories take longer (a slower host), the
    // start report stops waiting 3 s after the last answer (REPORT_IDLE_MS) and the others come in the next reports, so
    // the first one alone would give the memory and the time of part of the devices (16 of 200 on a host where a
    // process takes 9 ms to start).
    const readyIn = (r: RecordedRequest) => devicesOf(r).filter((d) => d.state === 'device' && d.modelName !== undefined).length;
    const put = await cloud.waitForPut(
      (r) => cloud.putRequests().indexOf(r) >= putsBefore && r.answer?.status === 200 && readyIn(r) >= farm.devices.length,
      600_000,
    );
    const proc = procSample(agent.child.pid!);
    const metrics = await scrapeMetrics(url);
    // The log's time is ISO, to the millisecond.
    const at = (l: Record<string, unknown>) => Date.parse(String(l.time));
    const collects = agent.logs().filter((l) => l.msg === 'inventory collected' && typeof l.ms === 'number' && !Number.isNaN(at(l)));
    const [first, last] = [collects[0], collects.filter((l) => at(l) <= put.receivedAt).at(-1)];
    // Without it the table's inventory column is empty and no target can be judged: stop rather than print NaN.
    if (first === undefined || last === undefined)
      throw new Error("the agent logged no 'inventory collected' line with its ms (src/report/reporter.ts): the bench cannot measure the inventory");
    // From the start of the first report's inventories to the end of those of the report that completed them.
    const inventoryMs = at(last) - (at(first) - (first.ms as number));
    const devices = devicesOf(put);
    const counts = [...farm.sessionCounts().values()];
    // Sessions per device: wait until the daemon is quiet (one inventory is one session; a second inventory at start would show).
    let seen = -1;
    for (let stable = 0; stable < 3;) {
      await sleep(500);
      const logs = agent.logs();
      const now = farm.totalSessions() + logs.filter(isDelivered).length * 1e6 + logs.filter((l) => l.msg === 'inventory collected').length * 1e9;
      stable = now === seen ? stable + 1 : 0;
      seen = now;
    }
    const inventories = agent.logs().filter((l) => l.msg === 'inventory collected').length;
    return {
      inventoryMs,
      inventoryMetricMs: (metrics.get('device_agent_inventory_duration_seconds') ?? NaN) * 1000,
      inventories,
      sessionsPerDevice: farm.devices.length ? farm.totalSessions() / farm.devices.length : 0,
      reported: devices.length,
      ready: readyIn(put),
      sessionsMax: Math.max(0, ...counts),
      sessionsTotal: counts.reduce((a, b) => a + b, 0),
      bytesRead: metrics.get('device_agent_shell_bytes_read_total') ?? NaN,
      proc,
      metricsRss: metrics.get('process_resident_memory_bytes') ?? NaN,
      metricsCpu: metrics.get('process_cpu_seconds_total') ?? NaN,
    };
  } finally {
    await agent.stop('SIGTERM', 15_000).catch(() => agent.stop('SIGKILL'));
  }
}

function runFloor(input: FloorInput): Promise<FloorOutput> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [floorScript, JSON.stringify(input)], { maxBuffer: 16 * 1024 * 1024, timeout: 600_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`floor failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as FloorOutput);
    });
  });
}

async function benchSize(n: number, profile: Profile, script: string): Promise<SizeResult> {
  log(`N=${n}: starting ${n} simulated devices`);
  const farm = new SimFarm({ count: n, profile, serialPrefix: `B${n}x`, readyTimeoutMs: 120_000 });
  await farm.start();
  const concurrencies = [DEFAULT_CONCURRENCY];
  if (n > DEFAULT_CONCURRENCY) {
    for (const v of sweep) {
      const c = v === 'N' ? n : Number(v);
      if (c > 0 && !concurrencies.includes(c)) concurrencies.push(c);
    }
  }
  const result: SizeResult = {
    n,
    floorMs: [],
    floorBytes: 0,
    floorFailures: 0,
    floorCpu: [],
    floorMachineCpu: [],
    agents: concurrencies.map((concurrency) => ({ concurrency, rounds: [] })),
  };
  try {
    // Interleaved, and in turn floor first then agent first, so that a drift
    // in the machine's speed over the run (seen: the floor took 3.3 s in the
    // first round and 2.3 s in the fifth) does not favour the one measured
    // second. Each round's agent/floor ratio is kept for the table.
    for (let r = 0; r < rounds; r++) {
      const floorRound = async () => {
        if (n === 0) return;
        const busy = machineBusySeconds();
        const floor = await runFloor({ port: farm.port, serials: farm.serials, script, rounds: 1 });
        const machine = machineBusySeconds() - busy;
        result.floorCpu.push(floor.cpuSeconds);
        result.floorMachineCpu.push(machine);
        for (const fr of floor.rounds) {
          result.floorMs.push(fr.ms);
          result.floorBytes = fr.bytes;
          result.floorFailures += fr.failures;
        }
        log(`N=${n} round ${r + 1}: floor ${floor.rounds.map((x) => x.ms.toFixed(0)).join(',')} ms, machine busy ${machine.toFixed(2)} CPU s`);
      };
      if (r % 2 === 0) await floorRound();
      for (const entry of result.agents) {
        const round = await agentRound(farm, entry.concurrency);
        entry.rounds.push(round);
        log(
          `N=${n} round ${r + 1}: agent (concurrency ${entry.concurrency}) ${round.inventoryMs} ms, ${round.reported} reported, ` +
            `${round.inventories} reports inventoried, ${round.sessionsPerDevice.toFixed(2)} sessions/dev, peak RSS ${(round.proc.peakRssBytes / 2 ** 20).toFixed(1)} MB`,
        );
      }
      if (r % 2 === 1) await floorRound();
    }
  } finally {
    await farm.stop();
  }
  return result;
}

/**
 * Appends /dev/kmsg records to `path`, `rate` a second in tenth-second
 * batches: on 16 ports of hub 1-1, an enumeration failure (error -71), a
 * disconnect and a new device, in turn, as a hub with a bad power supply
 * logs them. Returns the lines written when stopped.
 */
function busyKernelLog(path: string, rate: number): { stop(): number } {
  const messages = [
    (p: number) => `3,%SEQ%,%TS%,-;usb 1-1.${p}: device descriptor read/64, error -71`,
    (p: number) => `6,%SEQ%,%TS%,-;usb 1-1.${p}: USB disconnect, device number ${40 + p}`,
    (p: number) => `6,%SEQ%,%TS%,-;usb 1-1.${p}: new high-speed USB device number ${40 + p} using xhci_hcd`,
  ];
  let seq = 1_000_000;
  let written = 0;
  const perBatch = Math.max(1, Math.round(rate / 10));
  const timer = setInterval(() => {
    let text = '';
    for (let i = 0; i < perBatch; i++, seq++, written++) {
      const line = messages[seq % messages.length]!(1 + (Math.floor(seq / messages.length) % 16));
      text += line.replace('%SEQ%', String(seq)).replace('%TS%', String(Math.round(performance.now() * 1000))) + '\n';
    }
    appendFileSync(path, text);
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return written;
    },
  };
}

async function benchLive(n: number, profile: Profile): Promise<LiveResult> {
  log(`live: ${n} devices, daemon on a 60 s schedule`);
  const farm = new SimFarm({ count: n, profile, serialPrefix: 'LIVEx', readyTimeoutMs: 120_000 });
  await farm.start();
  const plugged: SimDevice[] = [];
  // The kernel log the daemon follows: a file of /dev/kmsg records (a replay), empty until the busy window.
  const kmsg = join(mkdtempSync(join(tmpdir(), 'bench-kmsg-')), 'kmsg');
  writeFileSync(kmsg, '');
  const agent = startAgent(agentEnv(farm, { DEVICE_AGENT_SCHEDULE: '* * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug', DEVICE_AGENT_USB_KERNEL_LOG: kmsg }));
  const result: LiveResult = { n, plugMs: [] };
  const delivered = () => agent.logs().filter((l) => l.msg === 'report delivered' && l.ms !== undefined);
  try {
    await statusUrl(agent);
    await agent.waitForLog((l) => l.msg === 'report delivered', 120_000);

    // Plug: from the moment `adb connect` is asked for to the cloud receiving a report with the device.
    for (let k = 1; k <= 5; k++) {
      const serial = `PLUG${String(k).padStart(4, '0')}`;
      const device = new SimDevice({ profile: withSerial(profile, serial) });
      plugged.push(device);
      const port = await device.start();
      const t0 = Date.now();
      await farm.server.connect(port);
      const put = await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).some((d) => d.udid === serial && d.state === 'device'), 20_000);
      result.plugMs.push(put.receivedAt - t0);
      log(`plug ${serial}: ${put.receivedAt - t0} ms`);
      await sleep(2500);
    }

    // Idle: a 20 s window with no report in it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const last = delivered().length;
      const a = procSample(agent.child.pid!);
      const t0 = performance.now();
      await sleep(20_000);
      const b = procSample(agent.child.pid!);
      const seconds = (performance.now() - t0) / 1000;
      const reportsInWindow = delivered().length - last;
      result.idle = { seconds, cpuSeconds: b.cpuSeconds - a.cpuSeconds, reportsInWindow, fds: [a.fds, b.fds], rss: [a.rssBytes, b.rssBytes] };
      log(`idle: ${(b.cpuSeconds - a.cpuSeconds).toFixed(2)} CPU s over ${seconds.toFixed(1)} s, ${reportsInWindow} reports in the window`);
      if (reportsInWindow === 0) break;
    }

    // Idle with a busy kernel log: a hub whose 16 ports fail and come back, kmsgRate lines a second.
    if (kmsgRate > 0) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const last = delivered().length;
        const writer = busyKernelLog(kmsg, kmsgRate);
        const a = procSample(agent.child.pid!);
        const t0 = performance.now();
        await sleep(20_000);
        const b = procSample(agent.child.pid!);
        const lines = writer.stop();
        const seconds = (performance.now() - t0) / 1000;
        const reportsInWindow = delivered().length - last;
        result.busyKernelLog = { rate: kmsgRate, lines, seconds, cpuSeconds: b.cpuSeconds - a.cpuSeconds, reportsInWindow };
        log(
          `busy kernel log: ${lines} lines, ${(b.cpuSeconds - a.cpuSeconds).toFixed(2)} CPU s over ${seconds.toFixed(1)} s, ${reportsInWindow} reports in the window`,
        );
        if (reportsInWindow === 0) break;
      }
    }

    // One full period: from one scheduled report to the next, everything included.
    if (measurePeriod) {
      const scheduled = () => delivered().filter((l) => String(l.reason).includes('schedule'));
      const first = scheduled().length;
      await agent.waitForLog(() => scheduled().length > first, 70_000);
      const a = procSample(agent.child.pid!);
      const t0 = performance.now();
      await agent.waitForLog(() => scheduled().length > first + 1, 70_000);
      const b = procSample(agent.child.pid!);
      result.period = { seconds: (performance.now() - t0) / 1000, cpuSeconds: b.cpuSeconds - a.cpuSeconds };
      log(`period: ${(b.cpuSeconds - a.cpuSeconds).toFixed(2)} CPU s over ${result.period.seconds.toFixed(1)} s`);
    }
  } finally {
    await agent.stop('SIGTERM', 15_000).catch(() => agent.stop('SIGKILL'));
    await farm.stop();
    await Promise.all(plugged.map((d) => d.stop()));
  }
  return result;
}

interface CycleResult {
  /** 0: the first inventory (every tier); then the periodic ones. */
  cycle: number;
  /** Phones that ran a session for this cycle. */
  phones: number;
  bytesPerPhone: number;
  commandsPerPhone: number;
}

/** Device commands in a script: one per section marker, the end marker aside. */
function scriptCommands(script: string): number {
  return [...script.matchAll(/^m ([a-z0-9_]+);/gm)].filter((m) => m[1] !== 'end').length;
}

interface CyclesResult {
  cycles: CycleResult[];
  profiles: ProfileCycle[];
  proc: ProcSample;
}

/**
 * A daemon reporting every 5 s: per cycle (the k-th shell session of each
 * phone), the bytes the phone sent and the device commands it ran, the
 * first (full) inventory first; and per profile the costliest periodic cycle.
 * The devices take the profiles in turn, each at least once. The slow tier is
 * not due within these cycles (900 s by default).
 */
async function benchCycles(n: number, names: string[]): Promise<CyclesResult> {
  const count = Math.max(n, names.length);
  const profileOf = (i: number) => names[i % names.length]!;
  log(`cycles: ${count} devices (${names.length === 1 ? names[0] : `${names.length} profiles in turn`}), a report every 5 s`);
  const farm = new SimFarm({
    devices: Array.from({ length: count }, (_, i) => ({ profile: profileOf(i) })),
    serialPrefix: 'CYCx',
    readyTimeoutMs: 120_000,
  });
  await farm.start();
  farm.resetCounts();
  const agent = startAgent(agentEnv(farm, { DEVICE_AGENT_SCHEDULE: '*/5 * * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug' }));
  try {
    await statusUrl(agent);
    const delivered = () => agent.logs().filter((l) => l.msg === 'report delivered' && l.ms !== undefined).length;
    await agent.waitForLog(() => delivered() > cycleCount + 1, 30_000 + cycleCount * 15_000);
    const proc = procSample(agent.child.pid!);
    const cycles: CycleResult[] = [];
    for (let k = 0; k <= cycleCount; k++) {
      const ran = farm.devices.filter((d) => d.commands.length > k);
      const bytes = ran.reduce((sum, d) => sum + d.sessionBytes[k]!, 0);
      const commands = ran.reduce((sum, d) => sum + scriptCommands(d.commands[k]!), 0);
      cycles.push({ cycle: k, phones: ran.length, bytesPerPhone: bytes / Math.max(1, ran.length), commandsPerPhone: commands / Math.max(1, ran.length) });
      log(`cycle ${k}: ${ran.length} phones, ${(bytes / Math.max(1, ran.length)).toFixed(0)} bytes/phone`);
    }
    const profiles = periodicByProfile(
      farm.devices.map((d, i) => ({
        profile: profileOf(i),
        bytes: d.sessionBytes.slice(0, cycleCount + 1),
        commands: d.commands.slice(0, cycleCount + 1).map(scriptCommands),
      })),
    );
    return { cycles, profiles, proc };
  } finally {
    await agent.stop('SIGTERM', 15_000).catch(() => agent.stop('SIGKILL'));
    await farm.stop();
  }
}

function printCycles(profile: string, result: CyclesResult): void {
  const target = `<= ${CYCLE_BUDGET.bytes} bytes and <= ${CYCLE_BUDGET.commands} commands per phone`;
  console.log(
    `per cycle (${result.cycles[0]?.phones ?? 0} devices, profile ${profile}, a report every 5 s; cycle 0 is the first inventory; target after it: ${target}; agent RSS ${mb(result.proc.rssBytes)} MB, of it anon ${mb(result.proc.rssAnonBytes)} MB)`,
  );
  const head = ['cycle', 'phones', 'bytes/phone', 'vs first', 'commands/phone', 'vs first'];
  const first = result.cycles[0];
  const rows = result.cycles.map((c) => [
    c.cycle === 0 ? '0 (first)' : String(c.cycle),
    String(c.phones),
    c.bytesPerPhone.toFixed(0),
    first ? `${((c.bytesPerPhone / first.bytesPerPhone) * 100).toFixed(1)} %` : '-',
    c.commandsPerPhone.toFixed(1),
    first ? `${first.commandsPerPhone.toFixed(0)}` : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  console.log(pad(head, widths));
  for (const row of rows) console.log(pad(row, widths));
  console.log(`\nperiodic cycle per profile (the costliest of cycles 1-${cycleCount} of any of its phones; target ${target})`);
  const byHead = ['profile', 'phones', 'first bytes', 'periodic bytes', 'commands', 'target'];
  const byRows = result.profiles.map((p) => [
    p.profile,
    String(p.phones),
    String(p.firstBytes),
    String(p.periodicBytes),
    String(p.periodicCommands),
    p.met ? 'met' : 'MISSED',
  ]);
  const byWidths = byHead.map((h, i) => Math.max(h.length, ...byRows.map((row) => row[i]!.length)));
  console.log(pad(byHead, byWidths));
  for (const row of byRows) console.log(pad(row, byWidths));
  const missed = result.profiles.filter((p) => !p.met).map((p) => p.profile);
  if (missed.length > 0) {
    console.log(`periodic cycle target missed on: ${missed.join(', ')}`);
    process.exitCode = 1;
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-');

function range(values: number[]): string {
  return values.length ? `${ms(Math.min(...values))}-${ms(Math.max(...values))}` : '-';
}

/**
 * The agent's time over the floor's, round by round (each pair ran back to
 * back): the median, then the range. Steadier than the ratio of the medians
 * when the machine's speed drifts over the run.
 */
function roundRatios(agentMs: number[], floorMs: number[]): string {
  const ratios = pairedRatios(agentMs, floorMs);
  if (!ratios) return '-';
  return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
}

function pairedRatios(agentMs: number[], floorMs: number[]): number[] | undefined {
  if (agentMs.length === 0 || agentMs.length !== floorMs.length) return undefined;
  const ratios = agentMs.map((a, i) => a / floorMs[i]!);
  return ratios.every(Number.isFinite) ? ratios : undefined;
}

/** Under the table: the mean round ratio with its 95 % interval, for each N and concurrency with 2+ rounds. */
function printIntervals(results: SizeResult[]): void {
  for (const r of results) {
    for (const a of r.agents) {
      const ratios = pairedRatios(
        a.rounds.map((x) => x.inventoryMs),
        r.floorMs,
      );
      const interval = ratios && meanInterval(ratios);
      if (!interval) continue;
      console.log(
        `round ratio, ${r.n} devices, ${a.concurrency} at once: mean ${interval.mean.toFixed(2)}, ` +
          `95 % interval of the mean ${interval.low.toFixed(2)}-${interval.high.toFixed(2)} (${ratios.length} rounds)`,
      );
    }
  }
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
}

function printTable(results: SizeResult[]): void {
  const head = [
    'N',
    'probes at once',
    'inventory ms',
    '(min-max)',
    'floor ms',
    '(min-max)',
    'ratio',
    'ratio of mins',
    'round ratios (min-max)',
    'sessions/dev',
    'reports inventoried',
    'bytes read',
    'ready/reported',
    'RSS MB',
    'anon+file MB',
    'peak RSS MB',
    'CPU s',
    'floor CPU s',
    'machine CPU s',
    'fds',
  ];
  const rows: string[][] = [];
  for (const r of results) {
    const floor = median(r.floorMs);
    for (const a of r.agents) {
      const times = a.rounds.map((x) => x.inventoryMs);
      const inv = median(times);
      const last = a.rounds[a.rounds.length - 1];
      const ratio = (x: number, y: number) => (Number.isFinite(y) && y > 0 ? (x / y).toFixed(2) : '-');
      rows.push([
        String(r.n),
        String(a.concurrency),
        ms(inv),
        range(times),
        ms(floor),
        range(r.floorMs),
        ratio(inv, floor),
        ratio(Math.min(...times), Math.min(...r.floorMs)),
        roundRatios(times, r.floorMs),
        a.rounds.length ? Math.max(...a.rounds.map((x) => x.sessionsPerDevice)).toFixed(2) : '-',
        a.rounds.length ? String(Math.max(...a.rounds.map((x) => x.inventories))) : '-',
        last ? String(last.bytesRead) : '-',
        last ? `${last.ready}/${last.reported}` : '-',
        mb(median(a.rounds.map((x) => x.proc.rssBytes))),
        `${mb(median(a.rounds.map((x) => x.proc.rssAnonBytes)))}+${mb(median(a.rounds.map((x) => x.proc.rssFileBytes)))}`,
        mb(Math.max(...a.rounds.map((x) => x.proc.peakRssBytes))),
        median(a.rounds.map((x) => x.proc.cpuSeconds)).toFixed(2),
        r.floorCpu.length ? median(r.floorCpu).toFixed(2) : '-',
        r.floorMachineCpu.length ? median(r.floorMachineCpu).toFixed(2) : '-',
        last ? String(last.proc.fds) : '-',
      ]);
    }
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  console.log(pad(head, widths));
  for (const row of rows) console.log(pad(row, widths));
}

function printLive(live: LiveResult): void {
  const sorted = [...live.plugMs].sort((a, b) => a - b);
  console.log(
    `plug to report (${live.n} devices, ${sorted.length} plugs): median ${ms(median(sorted))} ms, max ${ms(sorted[sorted.length - 1] ?? NaN)} ms [${sorted.join(', ')}]`,
  );
  if (live.idle) {
    const pct = (live.idle.cpuSeconds / live.idle.seconds) * 100;
    console.log(
      `idle CPU (${live.n} devices, 60 s schedule, ${live.idle.seconds.toFixed(0)} s between reports): ${pct.toFixed(2)} % of a core` +
        ` (${live.idle.cpuSeconds.toFixed(2)} CPU s; ${live.idle.reportsInWindow} reports in window; fds ${live.idle.fds.join('->')}; RSS ${mb(live.idle.rss[0])}->${mb(live.idle.rss[1])} MB)`,
    );
  }
  if (live.busyKernelLog) {
    const k = live.busyKernelLog;
    console.log(
      `idle CPU with a busy kernel log (${live.n} devices, ${k.rate} USB lines a second over 16 ports, ${k.lines} lines in ${k.seconds.toFixed(0)} s): ` +
        `${((k.cpuSeconds / k.seconds) * 100).toFixed(2)} % of a core (${k.cpuSeconds.toFixed(2)} CPU s; ${k.reportsInWindow} reports in window)`,
    );
  }
  if (live.period) {
    const pct = (live.period.cpuSeconds / live.period.seconds) * 100;
    console.log(`CPU over one full schedule period (${live.period.seconds.toFixed(0)} s, one full report included): ${pct.toFixed(2)} % of a core`);
  }
}

async function main(): Promise<void> {
  // The profile with the most recorded commands: the closest to a real device's output.
  const profile = loadProfile(join(root, 'test/fixtures/devices', process.env.BENCH_PROFILE ?? 'xiaomi-poco-f6'));
  // Exactly what the agent sends on a device's first probe (the cloud double's host is pinged).
  const script = buildInventoryScript({ tiers: TIERS, reachabilityHost: '127.0.0.1' });
  await cloud.start();
  const results: SizeResult[] = [];
  let live: LiveResult | undefined;
  let cycles: CyclesResult | undefined;
  let watched: WatchResult | undefined;
  try {
    if (cyclesN > 0) cycles = await benchCycles(cyclesN, cyclesProfile === 'all' ? listProfiles() : [cyclesProfile]);
    for (const n of sizes) results.push(await benchSize(n, profile, script));
    if (liveN > 0) live = await benchLive(liveN, profile);
    if (watchN > 0) watched = await benchWatchers(watchN, profile, cloud, bin);
  } finally {
    await cloud.stop();
  }
  console.log(`\ndevice-agent benchmark: node ${process.version}, ${(await cpuInfo()).trim()}, ${rounds} rounds (median)`);
  console.log(`agent NODE_OPTIONS: ${agentNodeOptions ?? '(none)'}`);
  console.log(
    'inventory ms: device part of the first (full) inventory of a fresh daemon, from the start of its first inventories until every device answered (over one report or more); floor: the same script via adbkit, all devices at once, own process',
  );
  console.log(
    "CPU s and RSS: the agent process from /proc at its first report carrying every device ready (start-up included); peak RSS is VmHWM; anon+file splits RSS into the agent's own memory and mapped file pages (mostly node's code, shared and reclaimable); floor CPU s: the floor process, start-up included; machine CPU s: the whole machine busy during a floor round, the simulated devices' shells included",
  );
  console.log('rounds alternate floor-first and agent-first; round ratios: agent/floor of each round, median (min-max)\n');
  printTable(results);
  printIntervals(results);
  if (cycles) {
    console.log('');
    printCycles(cyclesProfile === 'all' ? 'every recorded one in turn' : cyclesProfile, cycles);
  }
  if (live) {
    console.log('');
    printLive(live);
  }
  if (watched) {
    console.log('');
    printWatchers(watched);
  }
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify({ results, live, cycles, watched }, null, 2));
}

function cpuInfo(): Promise<string> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', 'echo "$(nproc) CPUs, $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2)"'], (_e, out) => resolve(String(out)));
  });
}

await main();
