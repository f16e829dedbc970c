import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/package.js';
import { ConfigError, ConfigErrors } from './errors.js';
import { readEnvironment, type ConfigWarning } from './environment.js';
import { envName, schema, type Field, type Settings } from './schema.js';
import { closest, didYouMean } from './suggest.js';

const defaultsPath = join(projectRoot, 'config', 'default.json');

export interface LoadOptions {
  /** Optional file given with --config. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** For tests: another defaults file. */
  defaultsPath?: string;
  /** Values over every source: the command line's --log-level and --log-format. */
  overrides?: ReadonlyMap<string, unknown>;
}

export interface LoadedConfig {
  settings: Settings;
  /** Unknown or old variable names: the settings load, but something was probably meant otherwise. */
  warnings: ConfigWarning[];
  /** The DEVICE_AGENT_* variables set that the agent reads. */
  variables: string[];
}

/**
 * Reads defaults, then the optional file, then DEVICE_AGENT_* variables,
 * later ones winning, and validates every key against the schema. Throws
 * every problem at once (a ConfigErrors when there are several).
 */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const flat = new Map<string, unknown>();
  const errors: ConfigError[] = [];
  const collect = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      errors.push(err);
    }
  };
  collect(() => mergeFile(flat, options.defaultsPath ?? defaultsPath, 'defaults', errors));
  if (options.configPath) collect(() => mergeFile(flat, options.configPath!, '--config', errors));
  const reading = readEnvironment(env);
  // The variable each setting was read from, so that one it could not read is not validated again.
  const variableOf = new Map<string, string>();
  for (const [key, { name, raw }] of reading.values) {
    variableOf.set(key, name);
    collect(() => flat.set(key, fromEnv(name, raw, schema[key as keyof typeof schema])));
  }
  for (const [key, field] of Object.entries(schema) as [string, Field][]) {
    if (flat.has(key) || variableOf.has(key) || !field.envDefault) continue;
    const name = field.envDefault.find((n) => env[n] !== undefined && env[n] !== '');
    if (name === undefined) continue;
    variableOf.set(key, name);
    collect(() => flat.set(key, fromEnv(name, env[name]!, field)));
  }
  for (const [key, value] of options.overrides ?? []) flat.set(key, value);
  const unreadable = new Set(errors.map((e) => e.key));
  for (const [key, field] of Object.entries(schema)) {
    // A variable that could not be read already has its error; its file value is not the one meant.
    if (unreadable.has(variableOf.get(key) ?? '')) continue;
    collect(() => validate(key, field, flat.get(key)));
  }
  if (errors.length) throw errors.length === 1 && !reading.warnings.length ? errors[0]! : new ConfigErrors(errors, reading.warnings);
  return { settings: unflatten(flat) as unknown as Settings, warnings: reading.warnings, variables: reading.known };
}

/** config/default.json by key ("health.batteryHotCelsius"), for help and the reference. */
export function loadDefaults(path = defaultsPath): ReadonlyMap<string, unknown> {
  const flat = new Map<string, unknown>();
  const errors: ConfigError[] = [];
  mergeFile(flat, path, 'defaults', errors);
  if (errors.length) throw new ConfigErrors(errors);
  return flat;
}

/** The settings alone; throws as loadConfig does. */
export function loadSettings(options: LoadOptions = {}): Settings {
  return loadConfig(options).settings;
}

function mergeFile(flat: Map<string, unknown>, path: string, label: string, errors: ConfigError[]): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(label, `cannot read ${path}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(label, `${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(data)) throw new ConfigError(label, `${path} must hold a JSON object`);
  flatten(data, '', flat, path, errors);
}

// Group names ("health") and keys, the names a file may use.
const fileNames = [...new Set(Object.keys(schema).flatMap((key) => key.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))))];

function flatten(obj: Record<string, unknown>, prefix: string, flat: Map<string, unknown>, path: string, errors: ConfigError[]): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix + k;
    if (Object.hasOwn(schema, key)) flat.set(key, v);
    else if (isPlainObject(v) && Object.keys(schema).some((s) => s.startsWith(key + '.'))) flatten(v, key + '.', flat, path, errors);
    else {
      const hint = didYouMean(closest(key, fileNames)) || '; every setting is listed in docs/reference/configuration.md';
      errors.push(new ConfigError(key, `unknown setting in ${path}${hint}`));
    }
  }
}

function fromEnv(name: string, raw: string, field: Field): unknown {
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
      return raw;
  }
}

function validate(key: string, field: Field, value: unknown): void {
  const conventional = field.envDefault ? `, else ${field.envDefault.join(' or ')}` : '';
  const name = `${key} (${envName(key)}${conventional})`;
  if (value === undefined || value === null) {
    if (field.optional) return;
    throw new ConfigError(name, `is required: ${field.help}`);
  }
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new ConfigError(name, `must be a string, got ${typeof value}`);
      break;
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
      break;
  }
  if (field.oneOf && !field.oneOf.includes(value as string)) {
    throw new ConfigError(name, `must be one of ${field.oneOf.join(', ')}, got ${JSON.stringify(value)}`);
  }
  const problem = field.check?.(value as never);
  if (problem) throw new ConfigError(name, problem);
}

function unflatten(flat: Map<string, unknown>): Record<string, unknown> {
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
