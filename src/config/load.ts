import { sentInClear } from './plain-http.js';
import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { settingsFileProblem } from './file-modes.js';
import { docPath, projectRoot } from '../util/package.js';
import { ConfigError, ConfigErrors, onConfigError } from './errors.js';
import { codePointName, jsonSyntaxError } from './json-syntax.js';
import { readEnvironment, type ConfigWarning } from './environment.js';
import { envName, MOVED_SETTINGS, schema, settingFields, type Field, type Settings } from './schema.js';
import { closest, didYouMean } from './suggest.js';

const defaultsPath = join(projectRoot, 'config', 'default.json');
/** Far more than every setting with long lists: a bigger file is not a settings file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface LoadOptions {
  /** Optional file given with --config. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** For tests: another defaults file. */
  defaultsPath?: string;
  /** Values over every source: the command line's --log-level and --log-format. */
  overrides?: ReadonlyMap<string, unknown>;
}

export type LoadedConfig = ReturnType<typeof loadConfig>;

/** Reads defaults, the optional file, then DEVICE_AGENT_* variables (later winning), validates every key, and throws every problem at once. */
export function loadConfig(options: LoadOptions = {}) {
  const env = options.env ?? process.env;
  const flat = new Map<string, unknown>();
  const errors: ConfigError[] = [];
  const collect = (fn: () => void) => onConfigError(fn, (err) => errors.push(err));
  // The variables' warnings, then the files' old keys.
  const reading = readEnvironment(env);
  seedDefaults(flat);
  collect(() => mergeFile(flat, options.defaultsPath ?? defaultsPath, 'defaults', errors, reading.warnings));
  if (options.configPath) collect(() => mergeFile(flat, options.configPath!, '--config', errors, reading.warnings));
  // The variable each setting was read from, so that one it could not read is not validated again.
  const variableOf = new Map<string, string>();
  const fromVariable = (key: string, name: string, raw: string) => {
    variableOf.set(key, name);
    collect(() => flat.set(key, fromEnv(name, raw, schema[key as keyof typeof schema])));
  };
  for (const [key, { name, raw }] of reading.values) fromVariable(key, name, raw);
  // A setting neither the file nor its variable gave: its credential, else its conventional variable.
  for (const [key, field] of settingFields) {
    if (flat.has(key) || variableOf.has(key)) continue;
    if (Object.hasOwn(CREDENTIALS, key) && env.CREDENTIALS_DIRECTORY) {
      const path = join(env.CREDENTIALS_DIRECTORY, CREDENTIALS[key]!);
      const name = `the ${CREDENTIALS[key]} credential (${path})`;
      collect(() => {
        const raw = readCredential(path, name);
        if (raw !== undefined) fromVariable(key, name, raw);
      });
    }
    const name = variableOf.has(key) ? undefined : field.envDefault?.find((n) => env[n]);
    if (name !== undefined) fromVariable(key, name, env[name]!);
  }
  for (const [key, value] of options.overrides ?? []) flat.set(key, value);
  const unreadable = new Set(errors.map((e) => e.key));
  for (const [key, field] of settingFields) {
    // A variable that could not be read already has its error; its file value is not the one meant.
    if (unreadable.has(variableOf.get(key) ?? '')) continue;
    collect(() => validate(key, field, flat.get(key)));
  }
  // The one pair of settings that only make sense together: a pause ends below where it starts.
  const high = flat.get('charge.highPercent');
  const low = flat.get('charge.lowPercent');
  if (typeof high === 'number' && typeof low === 'number' && low >= high)
    errors.push(new ConfigError(`charge.lowPercent (${envName('charge.lowPercent')})`, `must be below charge.highPercent (${high}), got ${low}`));
  const ways = flat.get('charge.ways');
  if (Array.isArray(ways) && ways.some((w) => String(w).endsWith('=command')) && !flat.get('charge.command'))
    errors.push(new ConfigError(`charge.command (${envName('charge.command')})`, 'is needed by the `command` way that charge.ways names: the hub tool to run'));
  const baseUrl = flat.get('baseUrl');
  if (typeof baseUrl === 'string' && sentInClear(baseUrl)) {
    const host = new URL(baseUrl).host;
    if (flat.get('allowPlainHttp') === true) {
      reading.warnings.push({
        name: envName('allowPlainHttp'),
        message: `the cloud is reached over plain http (${host}): the API key crosses the network unencrypted, as allowPlainHttp allows`,
      });
    } else {
      errors.push(
        new ConfigError(
          `baseUrl (${envName('baseUrl')})`,
          `is plain http to another host (${host}): the API key would cross the network unencrypted. Use the cloud's https URL, or set allowPlainHttp (${envName('allowPlainHttp')}=true) where that network is trusted`,
        ),
      );
    }
  }
  if (errors.length) throw errors.length === 1 && !reading.warnings.length ? errors[0]! : new ConfigErrors(errors, reading.warnings);
  // warnings: unknown or old names (the settings load, but something was probably meant otherwise); variables: the DEVICE_AGENT_* ones set that the agent reads.
  return { settings: unflatten(flat) as unknown as Settings, warnings: reading.warnings, variables: reading.known };
}

/** Secret settings that may come as a systemd credential (LoadCredential=, never in the environment), read after the file and variable. */
const CREDENTIALS: Readonly<Record<string, string>> = { httpsProxy: 'https-proxy', httpProxy: 'http-proxy' };

/** The credential's text, or undefined when the unit hands over none of that name. */
function readCredential(path: string, name: string) {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(name, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The defaults by key ("health.batteryHotCelsius"): the features' fragments', then a defaults file's (config/default.json, the package's), for help, the reference and the man page. */
export function loadDefaults(path = defaultsPath): ReadonlyMap<string, unknown> {
  const flat = new Map<string, unknown>();
  seedDefaults(flat);
  const errors: ConfigError[] = [];
  mergeFile(flat, path, 'defaults', errors, []);
  if (errors.length) throw new ConfigErrors(errors);
  return flat;
}

/** The settings alone; throws as loadConfig does. */
export function loadSettings(options: LoadOptions = {}) {
  return loadConfig(options).settings;
}

/** The defaults the schema's fields carry (each feature's, in its fragment). */
function seedDefaults(flat: Map<string, unknown>) {
  for (const [key, field] of settingFields) if (field.default !== undefined) flat.set(key, structuredClone(field.default));
}

function mergeFile(flat: Map<string, unknown>, path: string, label: string, errors: ConfigError[], moved: ConfigWarning[]) {
  let bytes: Buffer;
  try {
    // A named pipe would block the start, and a device or a huge file is no settings file: refused before reading.
    const stat = statSync(path);
    if (!stat.isFile()) throw new ConfigError(label, `${path} is not a regular file (a named pipe, a device or a directory); give the path of a JSON file`);
    if (stat.size > MAX_CONFIG_BYTES) throw new ConfigError(label, `${path} is ${stat.size} bytes; a settings file is a few KB (at most ${MAX_CONFIG_BYTES})`);
    if (label !== 'defaults') refuseUntrusted(path, stat, label);
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(label, `cannot read ${path}: ${(err as Error).message}`);
  }
  const text = configText(bytes, path, label);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // Not JSON.parse's message: it quotes the text around the error, and this file holds the API key.
    const { line, column, problem } = jsonSyntaxError(text);
    throw new ConfigError(label, `${path} is not valid JSON: line ${line}, column ${column}: ${problem}`);
  }
  if (!isPlainObject(data)) throw new ConfigError(label, `${path} must hold a JSON object`);
  const old = new Map<string, unknown>();
  const own = new Set<string>();
  const flatten = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix + k;
      if (Object.hasOwn(schema, key)) {
        flat.set(key, v);
        own.add(key);
      } else if (Object.hasOwn(MOVED_SETTINGS, key)) old.set(key, v);
      else if (isPlainObject(v) && fileNames.includes(key)) flatten(v, key + '.');
      else {
        const hint = didYouMean(closest(key, fileNames)) || `; every setting is listed in ${docPath('docs/reference/configuration.md')}`;
        errors.push(new ConfigError(key, `unknown setting in ${path}${hint}`));
      }
    }
  };
  flatten(data, '');
  // A moved key still works, with a warning; the new key in the same file wins.
  for (const [key, value] of old) {
    const now = MOVED_SETTINGS[key]!;
    if (!own.has(now)) flat.set(now, value);
    moved.push({ name: key, message: `${key} in ${path} is the old name of ${now}: it still works for now, but rename it` });
  }
}

/** A settings file another user may write or replace is refused (config/file-modes.ts). */
function refuseUntrusted(path: string, stat: Stats, label: string) {
  const euid = process.geteuid?.();
  if (euid === undefined) return;
  const dir = dirname(realpathSync(path));
  const problem = settingsFileProblem(path, stat, Object.assign(statSync(dir), { path: dir }), euid);
  if (problem) throw new ConfigError(label, problem);
}

// Group names ("health") and keys, the names a file may use: a name here that is no key is a group.
const fileNames = [...new Set(Object.keys(schema).flatMap((key) => key.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))))];

function fromEnv(name: string, raw: string, field: Field) {
  switch (field.type) {
    case 'integer':
      if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(raw)}`);
      return Number(raw.trim());
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(name, `must be true or false, got ${JSON.stringify(raw)}`);
    }
    case 'string[]':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      // Windows line ends give each value a trailing carriage return (a username that then fails as a 401).
      return raw.trim();
  }
}

/**
 * The file's text: a UTF-8 byte order mark is dropped (RFC 8259 allows it); UTF-16 and non-UTF-8 bytes are refused by
 * name, rather than read as an invisible token or a U+FFFD that fails as a 401 much later.
 */
function configText(bytes: Buffer, path: string, label: string) {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new ConfigError(label, `${path} is UTF-16 text (as Windows PowerShell's > writes it); save it as UTF-8`);
  }
  const text = bytes.toString('utf8').replace(/^\ufeff/, '');
  const bad = text.indexOf('\ufffd');
  if (bad >= 0 && !bytes.includes(Buffer.from('\ufffd'))) {
    const line = text.slice(0, bad).split('\n').length;
    throw new ConfigError(label, `${path} holds bytes that are not UTF-8 on line ${line} (an editor saving Latin-1 or Windows-1252?); save it as UTF-8`);
  }
  return text;
}

/** A control character in a text setting: none is meant, and a carriage return is a file with Windows line ends. */
function controlProblem(value: string) {
  const m = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.exec(value);
  if (!m) return undefined;
  const what = m[0] === '\r' ? 'a carriage return (U+000D; a file saved with Windows line ends?)' : `the control character ${codePointName(m[0])}`;
  return `holds ${what} at position ${m.index + 1}; remove it`;
}

function validate(key: string, field: Field, value: unknown) {
  const credential = Object.hasOwn(CREDENTIALS, key) ? `the ${CREDENTIALS[key]} credential, ` : '';
  const conventional = field.envDefault ? `, else ${credential}${field.envDefault.join(' or ')}` : '';
  const name = `${key} (${envName(key)}${conventional})`;
  if (value === undefined || value === null) {
    if (field.optional) return;
    throw new ConfigError(name, `is required: ${field.help}`);
  }
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') throw new ConfigError(name, `must be a string, got ${typeof value}`);
      // The message names the character and where, never the value: it may be the API key.
      const problem = controlProblem(value);
      if (problem) throw new ConfigError(name, problem);
      break;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(value)}`);
      if (field.min !== undefined && value < field.min) throw new ConfigError(name, `must be at least ${field.min}, got ${value}`);
      if (field.max !== undefined && value > field.max) throw new ConfigError(name, `must be at most ${field.max}, got ${value}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') throw new ConfigError(name, `must be true or false, got ${JSON.stringify(value)}`);
      break;
    case 'string[]':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ConfigError(name, 'must be a list of strings');
      for (const item of value as string[]) {
        const problem = controlProblem(item);
        if (problem) throw new ConfigError(name, `an entry ${problem}`);
      }
      break;
  }
  if (field.oneOf && !field.oneOf.includes(value as string)) {
    throw new ConfigError(name, `must be one of ${field.oneOf.join(', ')}, got ${JSON.stringify(value)}`);
  }
  const problem = field.check?.(value as never);
  if (problem) throw new ConfigError(name, problem);
}

function unflatten(flat: Map<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of flat) {
    const parts = key.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]!] = value;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
