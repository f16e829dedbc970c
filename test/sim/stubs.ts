// Turns a profile into what a real shell needs to run any script the agent
// sends as if on the device: a folder of executables, one per command name,
// that is the whole PATH (so no host binary answers with the host's data),
// and the same commands as shell functions in a prelude the session sources
// first. The functions answer without a fork, which keeps 200 simulated
// devices cheap; the executables serve the paths functions cannot reach
// (`command dumpsys`, `exec`).
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseGetprop, DEFAULT_FALLBACK, type Fallback, type Profile, type Recording } from './profile.js';

type Flavour = 'executable' | 'function';

/** Single-quote for /bin/sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Shell code printing a fallback template, with a final newline. {command}
 * is the name, {args} all arguments; with {arg} the line is printed once per
 * argument that is not an option ("ls: /a: No such file..." for each path).
 */
export function renderTemplate(template: string, command: string, flavour: Flavour = 'executable'): string {
  const words: string[] = [];
  for (const piece of template.split(/(\{command\}|\{args\}|\{arg\})/)) {
    if (piece === '') continue;
    if (piece === '{args}') words.push('"$*"');
    else if (piece === '{arg}') words.push('"$a"');
    else if (piece === '{command}') words.push(shellQuote(command));
    else words.push(shellQuote(piece));
  }
  const newline = template.endsWith('\n') ? '' : ' "\n"';
  // printf's format is fixed: recorded text never reaches it as a format.
  // Functions say `builtin` in case a profile records a command named printf
  // (dash, which runs the executables, has no `builtin`).
  const print = `${flavour === 'function' ? 'builtin ' : ''}printf '%s' ${words.join(' ')}${newline}`;
  if (!template.includes('{arg}')) return `{ ${print}; }`;
  return `for a in "$@"; do case "$a" in -*) ;; *) ${print} ;; esac; done`;
}

export interface StubPlan {
  /** Argument strings ("$*") to recordings. */
  recorded: Map<string, Recording>;
  fallback: Fallback | undefined;
  /** Argument strings whose command hangs. */
  hangs: string[];
  /** Parsed dump, for getprop only. */
  getprop?: Map<string, string>;
}

/** A command that never answers, until killed (or cut short by timeout). */
const HANG = '/bin/sleep 2147483647';

/** The command line whose recording is the uptime at the simulated boot's start (see uptimeCase). */
export const UPTIME_LINE = 'cat /proc/uptime';

/** `/proc/uptime` ("SECONDS IDLE", two decimals) in hundredths of a second; undefined for another form. */
export function parseUptimeRecording(text: string): { up: number; idle: number } | undefined {
  const match = /^(\d+)(?:\.(\d{1,2}))? (\d+)(?:\.(\d{1,2}))?\n?$/.exec(text);
  if (!match) return undefined;
  const cs = (whole: string, frac = '0'): number => Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  return { up: cs(match[1]!, match[2]), idle: cs(match[3]!, match[4]) };
}

/** Seconds of uptime a profile records (its `cat /proc/uptime`), if any. */
export function recordedUptimeSeconds(profile: Profile): number | undefined {
  const recording = profile.commands.get(UPTIME_LINE);
  const parsed = recording === undefined ? undefined : parseUptimeRecording(recording.output);
  return parsed === undefined ? undefined : parsed.up / 100;
}

/**
 * The uptime advances with time: with SIM_BOOT_US (epoch microseconds of the
 * simulated boot, set by SimDevice per session) the answer is the time since
 * that instant, read when the command runs; the idle figure advances with it
 * from the recorded one. Without it, the recording as it is.
 */
function uptimeCase(recording: Recording, file: string, flavour: Flavour): string | undefined {
  const parsed = parseUptimeRecording(recording.output);
  if (!parsed) return undefined;
  const { up, idle } = parsed;
  const printf = flavour === 'function' ? 'builtin printf' : 'printf';
  const print =
    `u=$(( (n - SIM_BOOT_US) / 10000 )); [ "$u" -lt 0 ] && u=0; i=$(( ${idle} + u - ${up} )); [ "$i" -lt ${idle} ] && i=${idle}; ` +
    `${printf} '%d.%02d %d.%02d\\n' $((u / 100)) $((u % 100)) $((i / 100)) $((i % 100))`;
  if (flavour === 'function') {
    return `'/proc/uptime') if [ -z "$SIM_BOOT_US" ]; then __sim_out ${file}; return 0; fi; local n=\${EPOCHREALTIME/[!0-9]/} u i; ${print}; return 0 ;;`;
  }
  return `'/proc/uptime') if [ -z "$SIM_BOOT_US" ]; then exec /bin/cat ${file}; fi; n=$(/bin/date +%s%6N); ${print}; exit 0 ;;`;
}

/**
 * Per-command latency: a command named in SIM_LAG_NAMES (space separated,
 * set by SimDevice per session) answers SIM_LAG_S seconds late, as the
 * framework commands of a loaded phone do. No fork unless it applies.
 */
const LAG_HELPER = `__sim_lag() { case " $SIM_LAG_NAMES " in *" $1 "*) /bin/sleep "$SIM_LAG_S" ;; esac; }`;

function lagLine(name: string): string {
  return `case " $SIM_LAG_NAMES " in *${shellQuote(` ${name} `)}*) /bin/sleep "$SIM_LAG_S" ;; esac`;
}

/**
 * `settings` answers from per-device state before its recordings: with
 * SIM_SETTINGS (a folder, set by SimDevice per session) a global, system or
 * secure key that has a file there (`global.KEY`, `system.KEY`, `secure.KEY`) reads as the
 * file's line, and `put` replaces it, unless the folder holds
 * `ignore-writes` (a phone whose One UI drops every write, as a real one
 * does without a word) or `ignore.NAMESPACE.KEY` (that one key does not
 * stick). `settings list NAMESPACE` answers its recording with the kept
 * keys' values in place of the recorded ones (settingsListBody). Keys
 * without a file answer from the recordings as before.
 */
function settingsStateLines(flavour: Flavour): string[] {
  const fn = flavour === 'function';
  const quit = fn ? 'return' : 'exit';
  const printf = fn ? 'builtin printf' : 'printf';
  return [
    'if [ -n "$SIM_SETTINGS" ] && { [ "$2" = global ] || [ "$2" = system ] || [ "$2" = secure ]; } && [ -e "$SIM_SETTINGS/$2.$3" ]; then',
    `  case "$1" in get) IFS= read -r v < "$SIM_SETTINGS/$2.$3"; ${printf} '%s\n' "$v"; ${quit} 0 ;;`,
    `  put) [ -e "$SIM_SETTINGS/ignore-writes" ] || [ -e "$SIM_SETTINGS/ignore.$2.$3" ] || ${printf} '%s\n' "$4" > "$SIM_SETTINGS/$2.$3"; ${quit} 0 ;; esac`,
    'fi',
  ];
}

/**
 * `settings list NAMESPACE` with per-device state: the recording's lines but
 * those of a kept key, then each kept key's `KEY=VALUE` (none for `null`,
 * as Android lists no row for an unset key), in a subshell so that no
 * variable leaks into the session. Without state, the recording alone.
 */
function settingsListBody(namespace: string, file: string, recorded: string, flavour: Flavour): string {
  const fn = flavour === 'function';
  const printf = fn ? 'builtin printf' : 'printf';
  const quit = fn ? 'return' : 'exit';
  const overlay =
    `( while IFS= read -r l || [ -n "$l" ]; do [ -e "$SIM_SETTINGS/${namespace}.\${l%%=*}" ] || ${printf} '%s\\n' "$l"; done < ${file}; ` +
    `for f in "$SIM_SETTINGS"/${namespace}.*; do [ -e "$f" ] || continue; IFS= read -r v < "$f"; [ "$v" = null ] || ${printf} '%s=%s\\n' "\${f##*/${namespace}.}" "$v"; done )`;
  return `if [ -n "$SIM_SETTINGS" ]; then ${overlay}; ${quit} 0; fi; ${recorded}`;
}

/** The generated source of one command, as an executable or a function. Pure. */
export function stubSource(name: string, plan: StubPlan, outputFile: (recording: Recording) => string, flavour: Flavour): string {
  const fn = flavour === 'function';
  const quit = fn ? 'return' : 'exit';
  const printf = fn ? 'builtin printf' : 'printf';
  const lines = fn ? [`${name}() {`, 'local a v', `__sim_lag ${shellQuote(name)}`] : ['#!/bin/sh', lagLine(name)];
  if (name === 'settings') lines.push(...settingsStateLines(flavour));
  lines.push('case "$*" in');
  for (const args of plan.hangs) lines.push(`${shellQuote(args)}) ${fn ? HANG : `exec ${HANG}`} ;;`);
  for (const [args, recording] of plan.recorded) {
    const file = shellQuote(outputFile(recording));
    const uptime = name === 'cat' && args === '/proc/uptime' ? uptimeCase(recording, file, flavour) : undefined;
    if (uptime !== undefined) {
      lines.push(uptime);
      continue;
    }
    // bash's read stops at a NUL: such a recording costs a fork of cat.
    const hasNul = recording.bytes ? recording.bytes.includes(0) : recording.output.includes('\0');
    const body = fn
      ? hasNul
        ? `/bin/cat ${file}; return ${recording.exitCode}`
        : `__sim_out ${file}; return ${recording.exitCode}`
      : recording.exitCode === 0
        ? `exec /bin/cat ${file}`
        : `/bin/cat ${file}; exit ${recording.exitCode}`;
    const list = name === 'settings' ? /^list (global|system)$/.exec(args) : null;
    lines.push(`${shellQuote(args)}) ${list ? settingsListBody(list[1]!, file, body, flavour) : body} ;;`);
  }
  lines.push('esac');
  if (plan.getprop) {
    // getprop NAME [DEFAULT]: the value, else the default, else an empty line.
    lines.push('case "$1" in');
    for (const [prop, value] of plan.getprop) {
      lines.push(`${shellQuote(prop)}) ${printf} '%s\\n' ${shellQuote(value)} ;;`);
    }
    lines.push(`*) ${printf} '%s\\n' "$2" ;;`, 'esac', `${quit} 0`);
  } else {
    const fallback = plan.fallback ?? { template: DEFAULT_FALLBACK, exitCode: 1 };
    lines.push(`${renderTemplate(fallback.template, name, flavour)} >&2`, `${quit} ${fallback.exitCode}`);
  }
  if (fn) lines.push('}');
  return lines.join('\n') + '\n';
}

/** Group a profile's command lines by command name; `withSettings` gives it a `settings` even when none was recorded. */
export function planStubs(profile: Profile, hangOn?: RegExp, withSettings = false): Map<string, StubPlan> {
  const plans = new Map<string, StubPlan>();
  const planFor = (name: string): StubPlan => {
    let plan = plans.get(name);
    if (!plan) {
      plan = { recorded: new Map(), fallback: profile.fallbacks.get(name), hangs: [] };
      plans.set(name, plan);
    }
    return plan;
  };
  for (const [line, recording] of profile.commands) {
    const space = line.indexOf(' ');
    const name = space < 0 ? line : line.slice(0, space);
    // A name with a slash would be a path, which PATH lookup never reaches.
    if (name.includes('/') || name === '') continue;
    const args = space < 0 ? '' : line.slice(space + 1);
    const plan = planFor(name);
    plan.recorded.set(args, recording);
    if (hangOn?.test(line)) plan.hangs.push(args);
  }
  for (const name of profile.fallbacks.keys()) if (!name.includes('/')) planFor(name);
  if (withSettings) planFor('settings');
  const getprop = plans.get('getprop');
  if (getprop) {
    getprop.getprop = parseGetprop(getprop.recorded.get('')?.output ?? '');
    // A NUL cannot sit in shell source; a raw property has its own `getprop NAME` recording (withProps).
    for (const [name, value] of getprop.getprop) if (value.includes('\0') || name.includes('\0')) getprop.getprop.delete(name);
  }
  return plans;
}

/**
 * Builtins and keywords win over functions and PATH alike, on the device
 * too: a recording under such a name could never be reached.
 */
const SHELL_WORDS = new Set(
  (
    'alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo ' +
    'enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd ' +
    'printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type ' +
    'typeset ulimit umask unalias unset wait if then else elif fi case esac for select while until do done in ' +
    'function time coproc [ [[ ]] { } ! . :'
  ).split(' '),
);

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.+-]*$/;

/** toybox's words for a command timeout cannot run (e.g. OpenHarmony's "timeout: exec .../csc: ..."). */
const TOYBOX_TIMEOUT_ENOENT = 'timeout: exec %s: No such file or directory\\n';

/**
 * Wrappers run the rest of their argv. As executables they hand it to the
 * host's own tool (kept in our process group by --foreground, so a killed
 * session takes it along), which finds the command on the stub-only PATH.
 */
const WRAPPER_EXECUTABLE: Record<string, string> = {
  timeout: [
    '#!/bin/sh',
    'skip=; d=; c=',
    'for a in "$@"; do',
    '  if [ -n "$skip" ]; then skip=; continue; fi',
    '  case "$a" in -k|-s) skip=1 ;; -*) ;; *) if [ -z "$d" ]; then d=$a; else c=$a; break; fi ;; esac',
    'done',
    `command -v "$c" >/dev/null 2>&1 || { printf '${TOYBOX_TIMEOUT_ENOENT}' "$c" >&2; exit 127; }`,
    'exec /usr/bin/timeout --foreground "$@"',
    '',
  ].join('\n'),
};

/** As functions, only a hanging command costs a process: the sleep until the deadline. */
function wrapperFunction(name: string, hangLines: string[]): string {
  if (name !== 'timeout') return '';
  const hangs = hangLines.map((line) => `${shellQuote(line)}) /bin/sleep "$d"; return 124 ;;`);
  return [
    'timeout() {',
    'local d',
    'while :; do case "$1" in -k|-s) shift 2 ;; -*) shift ;; *) break ;; esac; done',
    'd=$1; shift',
    `command -v "$1" >/dev/null || { builtin printf '${TOYBOX_TIMEOUT_ENOENT}' "$1" >&2; return 127; }`,
    // A lagging command that would answer after the deadline: toybox kills it at the deadline.
    `case " $SIM_LAG_NAMES " in *" $1 "*) if [[ $d =~ ^[0-9]+$ ]] && (( SIM_LAG_MS >= d * 1000 )); then /bin/sleep "$d"; return 124; fi ;; esac`,
    'case "$*" in',
    ...hangs,
    'esac',
    '"$@"',
    '}',
  ].join('\n');
}

/** Prints a recording without a fork: read -d '' takes the whole file. */
const OUTPUT_HELPER = `__sim_out() { local v; IFS= builtin read -r -d '' v < "$1"; builtin printf '%s' "$v"; }`;

export interface StubOptions {
  /** Recorded command lines ("dumpsys battery") that hang instead of answering. */
  hangOn?: RegExp;
  /** Message of a missing command; {command} is its name. */
  notFound?: string;
  /** The device has per-device settings state (SimDeviceOptions.settings): it has `settings` even where the profile recorded none. */
  settings?: boolean;
}

export interface StubSet {
  /** The only folder on PATH. */
  bin: string;
  /** bash source defining the commands as functions and the not-found handler. */
  prelude: string;
}

function notFoundHandler(template: string): string {
  const words = template
    .split(/(\{command\})/)
    .filter((piece) => piece !== '')
    .map((piece) => (piece === '{command}' ? '"$1"' : shellQuote(piece)));
  // A real phone has the framework commands a profile did not record: they lag all the same.
  return `command_not_found_handle() { __sim_lag "$1"; builtin printf '%s' ${words.join(' ')} "\n" >&2; return 127; }`;
}

/** Write executables into `dir`/bin, outputs into `dir`/out and the prelude into `dir`/prelude.sh. */
export async function writeStubs(profile: Profile, dir: string, options: StubOptions = {}): Promise<StubSet> {
  const bin = join(dir, 'bin');
  const out = join(dir, 'out');
  await mkdir(bin, { recursive: true });
  await mkdir(out, { recursive: true });
  const files = new Map<Recording, string>();
  const writes: Promise<void>[] = [];
  const outputFile = (recording: Recording): string => {
    let file = files.get(recording);
    if (!file) {
      file = join(out, String(files.size));
      files.set(recording, file);
      writes.push(writeFile(file, recording.bytes ?? recording.output));
    }
    return file;
  };
  const prelude = [OUTPUT_HELPER, LAG_HELPER, notFoundHandler(options.notFound ?? profile.notFound)];
  const hangLines: string[] = [];
  for (const [name, plan] of planStubs(profile, options.hangOn, options.settings)) {
    if (SHELL_WORDS.has(name)) continue;
    hangLines.push(...plan.hangs.map((args) => (args ? `${name} ${args}` : name)));
    const stub = join(bin, name);
    writes.push(writeFile(stub, stubSource(name, plan, outputFile, 'executable')).then(() => chmod(stub, 0o755)));
    if (FUNCTION_NAME.test(name)) prelude.push(stubSource(name, plan, outputFile, 'function'));
  }
  for (const name of profile.wrappers) {
    const source = WRAPPER_EXECUTABLE[name];
    if (!source) continue;
    const stub = join(bin, name);
    writes.push(writeFile(stub, source).then(() => chmod(stub, 0o755)));
    prelude.push(wrapperFunction(name, hangLines));
  }
  const preludeFile = join(dir, 'prelude.sh');
  writes.push(writeFile(preludeFile, prelude.join('\n') + '\n'));
  await Promise.all(writes);
  return { bin, prelude: preludeFile };
}
