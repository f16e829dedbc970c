// A recorded device: what its shell prints for each command, loaded from
// test/fixtures/devices/<name>/profile.json (format in that folder's README).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The fixtures stay in the source tree when this file runs compiled from dist/test/sim. */
export const DEVICES_DIR =
  [resolve(HERE, '../fixtures/devices'), resolve(HERE, '../../../test/fixtures/devices')].find((dir) => existsSync(dir)) ??
  resolve(HERE, '../fixtures/devices');

/** mksh (Android's /system/bin/sh) wording, exit status 127. */
export const DEFAULT_NOT_FOUND = '/system/bin/sh: {command}: inaccessible or not found';
/** Loud on purpose: a test author should notice a missing recording. */
export const DEFAULT_FALLBACK = '{command}: no recording of "{command} {args}" in this simulated device';

export interface Recording {
  output: string;
  exitCode: number;
  /**
   * What the device prints when it is not plain UTF-8 text (NUL, invalid
   * UTF-8: odd bytes); `output` then holds its UTF-8 decoding, for parsing.
   */
  bytes?: Buffer;
}

/** Answer for a known command with unrecorded arguments; {command} and {args} are replaced. */
export interface Fallback {
  template: string;
  exitCode: number;
}

export interface Profile {
  name: string;
  source: string;
  /** Properties announced in the CNXN banner (ro.product.name/model/device). */
  banner: Record<string, string>;
  /** Keyed by the command line with single spaces: "dumpsys battery". */
  commands: Map<string, Recording>;
  /** Keyed by command name: "dumpsys". */
  fallbacks: Map<string, Fallback>;
  notFound: string;
  /** Commands that run another command: only "timeout" (toybox, Android 7+) for now. */
  wrappers: string[];
  /**
   * Android 6 and older ran `shell:` commands on a pty even without shell_v2,
   * so every "\n" reached the host as "\r\n"; recordings keep plain "\n".
   */
  pty: boolean;
}

/** Wrappers the simulator knows how to provide. */
export const KNOWN_WRAPPERS = ['timeout'];

export class ProfileError extends Error {
  override name = 'ProfileError';
}

interface CommandSpec {
  file?: string;
  text?: string;
  exitCode?: number;
}

interface ProfileJson {
  source?: unknown;
  banner?: unknown;
  commands?: unknown;
  exitCodes?: unknown;
  fallbacks?: unknown;
  notFound?: unknown;
  wrappers?: unknown;
  pty?: unknown;
}

export function commandKey(commandLine: string): string {
  return commandLine.trim().split(/\s+/).join(' ');
}

/** `[name]: [value]` lines of a getprop dump; other lines are skipped. */
export function parseGetprop(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\[([^\]]*)\]: \[(.*)\]\r?$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) props.set(match[1], match[2]);
  }
  return props;
}

/** Set (or add, keeping getprop's sorted order) one property in a dump. */
export function setGetprop(dump: string, name: string, value: string): string {
  const lines = dump.split('\n');
  const trailingNewline = lines.at(-1) === '';
  if (trailingNewline) lines.pop();
  const entry = `[${name}]: [${value}]`;
  const at = lines.findIndex((line) => line.startsWith(`[${name}]: [`));
  if (at >= 0) {
    lines[at] = entry;
  } else {
    const after = lines.findIndex((line) => line.startsWith('[') && line.slice(1) > `${name}]`);
    lines.splice(after < 0 ? lines.length : after, 0, entry);
  }
  return lines.join('\n') + (trailingNewline ? '\n' : '');
}

/** A copy of `profile` whose getprop answers carry another serial number. */
export function withSerial(profile: Profile, serial: string): Profile {
  return withProps(profile, { 'ro.serialno': serial, 'ro.boot.serialno': serial });
}

/**
 * A copy of `profile` with properties overridden in `getprop` and `getprop
 * NAME`. A Buffer value is printed byte for byte (odd bytes: NUL, control
 * characters, invalid UTF-8), as a property a vendor or a user set can hold.
 */
export function withProps(profile: Profile, props: Record<string, string | Buffer>): Profile {
  const commands = new Map(profile.commands);
  const dump = commands.get('getprop');
  const raw = dump?.bytes !== undefined || Object.values(props).some((value) => Buffer.isBuffer(value));
  // latin1 maps each byte to one char and back: the raw dump is edited as text without losing a byte.
  let text = raw ? (dump?.bytes ?? Buffer.from(dump?.output ?? '', 'utf8')).toString('latin1') : (dump?.output ?? '');
  for (const [name, value] of Object.entries(props)) {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
    text = setGetprop(text, name, raw ? bytes.toString('latin1') : (value as string));
    const line = Buffer.concat([bytes, Buffer.from('\n')]);
    commands.set(`getprop ${name}`, Buffer.isBuffer(value) ? rawRecording(line) : { output: `${value}\n`, exitCode: 0 });
  }
  commands.set('getprop', raw ? rawRecording(Buffer.from(text, 'latin1'), dump?.exitCode) : { output: text, exitCode: dump?.exitCode ?? 0 });
  const banner = { ...profile.banner };
  for (const key of Object.keys(banner)) {
    const value = props[key];
    if (typeof value === 'string') banner[key] = value;
  }
  return { ...profile, commands, banner };
}

/**
 * A copy of `profile` whose `dumpsys battery` answers with the battery at
 * `percent` (its `level:` line, out of a scale of 100): a battery a test
 * charges or drains. The profile must have a recording of it.
 */
export function withBatteryLevel(profile: Profile, percent: number): Profile {
  const recorded = profile.commands.get('dumpsys battery');
  if (!recorded || !/^\s*level: \d+$/m.test(recorded.output)) throw new ProfileError(`${profile.name} has no dumpsys battery recording with a level line`);
  const output = recorded.output.replace(/^(\s*level: )\d+$/m, `$1${Math.round(percent)}`).replace(/^(\s*scale: )\d+$/m, '$1100');
  return { ...profile, commands: new Map(profile.commands).set('dumpsys battery', { output, exitCode: recorded.exitCode }) };
}

/**
 * A copy of `profile` whose `dumpsys battery` says the phone is on USB power
 * (`USB powered: true`, status CHARGING) or on none (every `... powered:`
 * line false, status DISCHARGING): a phone whose hub port's power a test
 * cuts. The profile must have a recording of it with its charger lines.
 */
export function withExternalPower(profile: Profile, on: boolean): Profile {
  const recorded = profile.commands.get('dumpsys battery');
  if (!recorded || !/^\s*USB powered: \w+$/m.test(recorded.output))
    throw new ProfileError(`${profile.name} has no dumpsys battery recording with its charger lines`);
  const output = recorded.output
    .replace(/^(\s*(?:AC|Wireless|Dock) powered: )\w+$/gm, '$1false')
    .replace(/^(\s*USB powered: )\w+$/m, `$1${on}`)
    .replace(/^(\s*status: )\d+$/m, `$1${on ? 2 : 3}`);
  return { ...profile, commands: new Map(profile.commands).set('dumpsys battery', { output, exitCode: recorded.exitCode }) };
}

function rawRecording(bytes: Buffer, exitCode = 0): Recording {
  return { output: bytes.toString('utf8'), exitCode, bytes };
}

/** Names of the profiles under test/fixtures/devices. */
export function listProfiles(dir = DEVICES_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'profile.json')))
    .map((entry) => entry.name)
    .sort();
}

/** Load a profile by name (a folder of test/fixtures/devices) or by folder path. */
export function loadProfile(nameOrDir: string): Profile {
  const dir = isAbsolute(nameOrDir) || nameOrDir.includes('/') ? resolve(nameOrDir) : join(DEVICES_DIR, nameOrDir);
  const file = join(dir, 'profile.json');
  let json: ProfileJson;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as ProfileJson;
  } catch (error) {
    throw new ProfileError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (typeof json.source !== 'string' || json.source.length === 0) {
    throw new ProfileError(`${file}: "source" (where the recordings come from) is required`);
  }
  const exitCodes = asRecord(json.exitCodes, file, 'exitCodes');
  const commands = new Map<string, Recording>();
  for (const [line, spec] of Object.entries(asRecord(json.commands, file, 'commands'))) {
    const key = commandKey(line);
    const parsed: CommandSpec = typeof spec === 'string' ? { file: spec } : (spec as CommandSpec);
    let output: string;
    if (typeof parsed.text === 'string') output = parsed.text;
    else if (typeof parsed.file === 'string') output = readRecording(dir, parsed.file, file);
    else throw new ProfileError(`${file}: command "${line}" needs a file name or {"file"|"text"}`);
    const exitCode = parsed.exitCode ?? exitCodes[line] ?? exitCodes[key] ?? 0;
    if (typeof exitCode !== 'number') throw new ProfileError(`${file}: exit code of "${line}" must be a number`);
    commands.set(key, { output, exitCode });
  }
  const fallbacks = new Map<string, Fallback>();
  for (const [name, spec] of Object.entries(asRecord(json.fallbacks, file, 'fallbacks'))) {
    if (typeof spec === 'string') fallbacks.set(name, { template: spec, exitCode: 1 });
    else if (spec && typeof spec === 'object' && typeof (spec as { output?: unknown }).output === 'string') {
      const { output, exitCode } = spec as { output: string; exitCode?: number };
      fallbacks.set(name, { template: output, exitCode: exitCode ?? 1 });
    } else throw new ProfileError(`${file}: fallback "${name}" must be a string or {"output", "exitCode"}`);
  }
  const props = parseGetprop(commands.get('getprop')?.output ?? '');
  const banner: Record<string, string> = {};
  for (const key of ['ro.product.name', 'ro.product.model', 'ro.product.device']) {
    const value = props.get(key);
    if (value !== undefined) banner[key] = value;
  }
  for (const [key, value] of Object.entries(asRecord(json.banner, file, 'banner'))) {
    if (typeof value === 'string') banner[key] = value;
  }
  return {
    name: dir.split('/').filter(Boolean).at(-1) ?? dir,
    source: json.source,
    banner,
    commands,
    fallbacks,
    notFound: typeof json.notFound === 'string' ? json.notFound : DEFAULT_NOT_FOUND,
    wrappers: parseWrappers(json.wrappers, file),
    pty: json.pty === true,
  };
}

/** A profile built in code, e.g. for a one-off command in a test. */
export function makeProfile(name: string, commands: Record<string, string | Recording>, source = 'invented in a test'): Profile {
  const map = new Map<string, Recording>();
  for (const [line, value] of Object.entries(commands)) {
    map.set(commandKey(line), typeof value === 'string' ? { output: value, exitCode: 0 } : value);
  }
  const props = parseGetprop(map.get('getprop')?.output ?? '');
  const banner: Record<string, string> = {};
  for (const key of ['ro.product.name', 'ro.product.model', 'ro.product.device']) {
    const value = props.get(key);
    if (value !== undefined) banner[key] = value;
  }
  return { name, source, banner, commands: map, fallbacks: new Map(), notFound: DEFAULT_NOT_FOUND, wrappers: [], pty: false };
}

function parseWrappers(value: unknown, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || !KNOWN_WRAPPERS.includes(name))) {
    throw new ProfileError(`${file}: "wrappers" must list some of ${KNOWN_WRAPPERS.join(', ')}`);
  }
  return value as string[];
}

function readRecording(dir: string, name: string, profileFile: string): string {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch (error) {
    throw new ProfileError(`${profileFile}: cannot read recording ${name}: ${(error as Error).message}`);
  }
}

function asRecord(value: unknown, file: string, field: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProfileError(`${file}: "${field}" must be an object`);
  }
  return value as Record<string, unknown>;
}
