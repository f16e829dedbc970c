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
