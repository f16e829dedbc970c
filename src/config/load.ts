import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './errors.js';
import { projectRoot } from '../util/package.js';
import { envName, schema, type Field, type Settings } from './schema.js';

const defaultsPath = join(projectRoot, 'config', 'default.json');

export interface LoadOptions {
  /** Optional file given with --config. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** For tests: another defaults file. */
  defaultsPath?: string;
}

/**
 * Reads defaults, then the optional file, then DEVICE_AGENT_* variables,
 * later ones winning, and validates every key against the schema.
 * Throws ConfigError naming the first bad key.
 */
export function loadSettings(options: LoadOptions = {}): Settings {
  const env = options.env ?? process.env;
  const flat = new Map<string, unknown>();
  mergeFile(flat, options.defaultsPath ?? defaultsPath, 'defaults');
  if (options.configPath) mergeFile(flat, options.configPath, '--config');
  for (const [key, field] of Object.entries(schema)) {
    const name = envName(key);
    const raw = env[name];
    if (raw !== undefined && raw !== '') flat.set(key, fromEnv(name, raw, field));
  }
  for (const [key, field] of Object.entries(schema) as [string, Field][]) {
    if (flat.has(key) || !field.envDefault) continue;
    const name = field.envDefault.find((n) => env[n] !== undefined && env[n] !== '');
    if (name !== undefined) flat.set(key, fromEnv(name, env[name]!, field));
  }
  for (const [key, field] of Object.entries(schema)) validate(key, field, flat.get(key));
  return unflatten(flat) as unknown as Settings;
}

function mergeFile(flat: Map<string, unknown>, path: string, label: string): void {
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
  flatten(data, '', flat, path);
}

function flatten(obj: Record<string, unknown>, prefix: string, flat: Map<string, unknown>, path: string): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix + k;
    if (Object.hasOwn(schema, key)) flat.set(key, v);
    else if (isPlainObject(v) && Object.keys(schema).some((s) => s.startsWith(key + '.'))) flatten(v, key + '.', flat, path);
    else throw new ConfigError(key, `unknown setting in ${path} (known: ${Object.keys(schema).join(', ')})`);
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
