import { randomBytes } from 'node:crypto';
import { probesOf } from './probes/registry.js';
import type { Tier } from './probes/types.js';

// The inventory probe as ONE shell script, so that a full inventory costs one
// `adb shell` session. Each probe prints a delimiter line and then its output;
// splitSections() cuts the output back apart.
//
// The script must run on Android 5 (mksh + toolbox) up to 16 (toybox): only
// commands that exist on all of them, `2>&1` on each, never `su` (it can pop a
// grant prompt on the device), and no shell file tests, so that recorded
// command outputs describe a device completely.

export const SECTION = {
  props: 'props',
  uptime: 'uptime',
  battery: 'battery',
  df: 'df',
  meminfo: 'meminfo',
  wmSize: 'wm_size',
  wmDensity: 'wm_density',
  orientation: 'orientation',
  packages: 'packages',
  telephony: 'telephony',
  ip: 'ip',
  proxy: 'proxy',
  ping: 'ping',
  id: 'id',
  su: 'su',
  deviceName: 'device_name',
  bluetoothName: 'bluetooth_name',
  imei: 'imei',
  simState: 'sim_state',
} as const;

export type SectionName = (typeof SECTION)[keyof typeof SECTION];

const END = 'end';

// A token fixed per agent process and unknown to the device: a user-set
// device name or a prop value that happens to read like a delimiter cannot
// shift the sections.
export const SESSION_TOKEN = randomBytes(6).toString('hex');

export function marker(name: string, token = SESSION_TOKEN): string {
  return `<<<DA:${token}:${name}>>>`;
}

export { SU_PATHS, isSafeHost } from './su-paths.js';

export interface ScriptOptions {
  /** Host to ping for networkReachability; skipped when absent or unsafe. */
  reachabilityHost?: string;
  /** Which tiers of probes to run (probes/types.ts). */
  tiers: Iterable<Tier>;
}

/** Seconds one probe command may take where the device has `timeout` (toybox, Android 7+). */
export const PROBE_TIMEOUT_SECONDS = 10;

export function buildInventoryScript(opts: ScriptOptions): string {
  const ctx = { reachabilityHost: opts.reachabilityHost };
  const lines = [
    // t: run a slow framework command under `timeout` where the device has one,
    // so one hung service leaves only its own section empty.
    't() { "$@"; }',
    `command -v timeout >/dev/null 2>&1 && t() { timeout ${PROBE_TIMEOUT_SECONDS} "$@"; }`,
    // keep: the lines of stdin that match one of the shell patterns given.
    // Shell builtins only (mksh on Android 5 has no grep for sure), so that a
    // long dumpsys of which the parser reads one line is not sent whole.
    'keep() { while IFS= read -r l; do for p in "$@"; do case $l in $p) echo "$l"; break;; esac; done; done; }',
  ];
  for (const probe of probesOf(opts.tiers)) {
    const command = typeof probe.command === 'string' ? probe.command : probe.command(ctx);
    if (command === undefined) continue;
    lines.push(`echo '${marker(probe.section)}'; ${command} 2>&1`);
  }
  lines.push(`echo '${marker(END)}'`);
  return lines.join('\n') + '\n';
}

/**
 * Cuts script output into sections by name. A section counts only when the
 * next delimiter printed too: a section cut short (device gone, session timed
 * out) is absent rather than half-read.
 */
export function splitSections(output: string, token = SESSION_TOKEN): Map<string, string> {
  const prefix = `<<<DA:${token}:`;
  const sections = new Map<string, string>();
  let name: string | undefined;
  let body: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // A command whose output does not end in a newline leaves the next
    // delimiter at the end of its last line: the text before it is still
    // that command's.
    const at = line.endsWith('>>>') ? line.lastIndexOf(prefix) : -1;
    const found = at >= 0 ? line.slice(at + prefix.length, -3) : undefined;
    if (found === undefined || !/^[a-z0-9_]+$/.test(found)) {
      if (name !== undefined) body.push(line);
      continue;
    }
    if (at > 0 && name !== undefined) body.push(line.slice(0, at));
    if (name !== undefined && !sections.has(name)) sections.set(name, body.join('\n'));
    name = found === END ? undefined : found;
    body = [];
  }
  return sections;
}
