// Reading a process from the outside: /proc for CPU, memory and descriptors,
// and the agent's own /metrics, so the numbers do not depend on the agent
// measuring itself correctly.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcSample {
  /** User + system CPU seconds since the process started. */
  cpuSeconds: number;
  rssBytes: number;
  /**
   * The two parts of rssBytes: RssAnon is the process's own memory (heap,
   * stacks, buffers); RssFile is pages of mapped files, mostly the node
   * binary's code, shared with every other node process and dropped by the
   * kernel under memory pressure.
   */
  rssAnonBytes: number;
  rssFileBytes: number;
  /** Peak resident memory (VmHWM). */
  peakRssBytes: number;
  fds: number;
  sockets: number;
}

// Linux reports CPU in clock ticks; USER_HZ is 100 on every mainstream build.
const TICKS_PER_SECOND = 100;

export function procSample(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds++;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // Closed between readdir and readlink.
    }
  }
  return {
    cpuSeconds: (utime + stime) / TICKS_PER_SECOND,
    rssBytes: kb('VmRSS'),
    rssAnonBytes: kb('RssAnon'),
    rssFileBytes: kb('RssFile'),
    peakRssBytes: kb('VmHWM'),
    fds,
    sockets,
  };
}

/**
 * CPU seconds the whole machine spent busy (every process, kernel included,
 * steal excluded) since boot. The simulated devices run a real shell per
 * command, so most of a round's CPU is theirs: this shows how much of the
 * machine a round used, next to the agent's and the floor's own CPU.
 */
export function machineBusySeconds(): number {
  const cpuLine = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = cpuLine.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) / TICKS_PER_SECOND;
}

/** Prometheus text format, unlabelled and labelled samples, as name{labels} -> value. */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return values;
}

export async function scrapeMetrics(baseUrl: string): Promise<Map<string, number>> {
  const res = await fetch(`${baseUrl}/metrics`);
  return parseMetrics(await res.text());
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// Two-sided 95 % quantiles of Student's t for 1 to 30 degrees of freedom.
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069,
  2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * The mean and its 95 % confidence interval (Student's t), for a handful of
 * noisy rounds: whether a target is met should not rest on one lucky round.
 */
export function meanInterval(values: number[]): { mean: number; low: number; high: number } | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (T95[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { mean, low: mean - half, high: mean + half };
}

/** What a periodic cycle may cost each phone after its first inventory (docs/performance/README.md). */
export const CYCLE_BUDGET = { bytes: 6144, commands: 10 };

/** One phone's shell sessions in order, the first inventory first: bytes it sent and device commands it ran. */
export interface PhoneSessions {
  profile: string;
  bytes: number[];
  commands: number[];
}

export interface ProfileCycle {
  profile: string;
  phones: number;
  firstBytes: number;
  /** Periodic sessions seen: none leaves the budget unmet, as nothing was measured. */
  periodic: number;
  periodicBytes: number;
  periodicCommands: number;
  met: boolean;
}

/** Per profile, the costliest periodic cycle of any of its phones, judged against CYCLE_BUDGET. */
export function periodicByProfile(phones: PhoneSessions[]): ProfileCycle[] {
  const rows = new Map<string, ProfileCycle>();
  for (const { profile, bytes, commands } of phones) {
    const row = rows.get(profile) ?? { profile, phones: 0, firstBytes: 0, periodic: 0, periodicBytes: 0, periodicCommands: 0, met: false };
    row.phones++;
    row.firstBytes = Math.max(row.firstBytes, bytes[0] ?? 0);
    row.periodic += Math.max(0, bytes.length - 1);
    row.periodicBytes = Math.max(row.periodicBytes, ...bytes.slice(1));
    row.periodicCommands = Math.max(row.periodicCommands, ...commands.slice(1));
    row.met = row.periodic > 0 && row.periodicBytes <= CYCLE_BUDGET.bytes && row.periodicCommands <= CYCLE_BUDGET.commands;
    rows.set(profile, row);
  }
  return [...rows.values()];
}
