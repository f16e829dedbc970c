import { randomBytes } from 'node:crypto';
import { PROBES } from './probes/registry.js';
import type { Tier } from './probes/types.js';

// The inventory as ONE shell script, so a full inventory costs one `adb shell` session: each probe prints a delimiter
// line, then its output. It must run on Android 5 (mksh + toolbox) to 16 (toybox): only commands all of them have,
// `2>&1` on each, never `su` (it can pop a grant prompt), no shell file tests.
const END = 'end';

// A token per agent process, unknown to the device, so a device name or prop that reads like a delimiter shifts nothing.
const SESSION_TOKEN = randomBytes(6).toString('hex');

export function marker(name: string, token = SESSION_TOKEN) {
  return `<<<DA:${token}:${name}>>>`;
}

/** How the script starts a section NAME (its delimiter printed by the script's `m`): section names are [a-z0-9_]. */
export function sectionStart(name: string) {
  return `m ${name};`;
}

/** The line the script prints last: adb's shell has no exit status to tell a finished script from a dead one. */
export const END_MARKER = marker(END);

interface ScriptOptions {
  /** Host to ping for networkReachability; skipped when absent or unsafe. */
  reachabilityHost?: string;
  /** Which tiers of probes to run (probes/types.ts). */
  tiers: Iterable<Tier>;
  /** Sections to run besides those tiers (what a slow device has not yet answered). */
  sections?: Iterable<string>;
  /** Sections to run before the others: what a slow device has not answered yet, or its last read did not reach. */
  first?: Iterable<string>;
}

/** Seconds one probe command may take where the device has `timeout` (toybox, Android 7+). */
const PROBE_TIMEOUT_SECONDS = 10;

export function buildInventoryScript(opts: ScriptOptions) {
  const lines = [
    // t: a slow framework command under `timeout` where there is one, so a hung service empties only its own section.
    't() { "$@"; }',
    `command -v timeout >/dev/null 2>&1 && t() { timeout ${PROBE_TIMEOUT_SECONDS} "$@"; }`,
    // keep: the stdin lines that match a pattern once their leading blanks are stripped, in shell builtins (Android 5's
    // mksh may lack grep), so a long dumpsys of which a few lines are read is not sent whole.
    'keep() { while IFS= read -r l; do k=${l#"${l%%[! \t]*}"}; for p in "$@"; do case $k in $p) echo "$l"; break;; esac; done; done; }',
    // tally NS PATTERN...: keep's lines of one `settings list NS`, then `rows:NS=N`, N the lines it printed
    // that read as rows (name=value, the name of the characters a setting's has): a list that printed
    // none did not list (src/platforms/android/inventory/parsers/readiness.ts).
    // m NAME: a section's delimiter (the token's 24 bytes once, not per section: old devices take 4 KiB a request).
    `m() { echo "<<<DA:${SESSION_TOKEN}:$1>>>"; }`,
    'tally() { n=0; ns=$1; shift; while IFS= read -r l; do case $l in status:*|namespace:*) ;; *) k=${l%%=*}; case $k in "$l"|"")  ;; *[!A-Za-z0-9_.:-]*) ;; *) n=$((n+1));; esac;; esac; for p in "$@"; do case $l in $p) echo "$l"; break;; esac; done; done; echo "rows:$ns=$n"; }',
  ];
  const extra = new Set(opts.sections ?? []);
  const tiers = new Set(opts.tiers);
  const first = new Set(opts.first ?? []);
  const chosen = PROBES.filter((p) => tiers.has(p.tier) || extra.has(p.section));
  // The uptime stays last, so the boot is dated by the output's arrival, unless a slow device's last read did not reach it.
  const ordered = [...chosen.filter((p) => first.has(p.section)), ...chosen.filter((p) => !first.has(p.section))];
  for (const probe of ordered) {
    const command = typeof probe.command === 'string' ? probe.command : probe.command(opts);
    if (command === undefined) continue;
    lines.push(`${sectionStart(probe.section)} ${command} 2>&1`);
  }
  lines.push(sectionStart(END));
  return lines.join('\n') + '\n';
}

/**
 * Cuts script output into sections by name. A section counts only when the next delimiter printed too: one cut short
 * is absent, not half-read; `ended` says whether the script's end arrived. A delimiter after output without its own
 * newline still ends that output. A \r before a line end (pty, Android before 7) is dropped. Jumps between delimiters
 * with indexOf for speed; test/platforms/android/inventory/split-reference.test.ts holds the line-by-line version.
 * `ended`: the script's end marker printed: every section it ran is here, the run is whole.
 */
export function splitSections(output: string, token = SESSION_TOKEN) {
  const prefix = `<<<DA:${token}:`;
  const sections = new Map<string, string>();
  let ended = false;
  let name: string | undefined;
  let bodyStart = 0;
  for (let at = output.indexOf(prefix); at >= 0;) {
    const newline = output.indexOf('\n', at);
    const stop = newline < 0 ? output.length : newline;
    const next = output.indexOf(prefix, at + 1);
    // Only the last delimiter of a line counts.
    if (next >= 0 && next < stop) {
      at = next;
      continue;
    }
    const close = output.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    const found = output.endsWith('>>>', close) ? output.slice(at + prefix.length, close - 3) : '';
    if (/^[a-z0-9_]+$/.test(found)) {
      if (name !== undefined && !sections.has(name)) sections.set(name, body(output, bodyStart, at));
      if (found === END) ended = true;
      name = found === END ? undefined : found;
      bodyStart = stop + 1;
    }
    at = next;
  }
  return { sections, ended };
}

// The text from `from` to the delimiter at `at`: whole lines without the last newline, plus the delimiter line's start.
function body(output: string, from: number, at: number) {
  const lineStart = output.lastIndexOf('\n', at - 1) + 1;
  if (lineStart <= from) return output.slice(from, at);
  let lines = output.slice(from, lineStart);
  if (lines.includes('\r')) lines = lines.replace(/\r\n/g, '\n');
  return lineStart < at ? lines + output.slice(lineStart, at) : lines.slice(0, -1);
}
