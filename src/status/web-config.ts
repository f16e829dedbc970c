import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { constants, closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type * as Bcrypt from 'bcryptjs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../config/errors.js';
import { TokenBucket } from '../timing/token-bucket.js';
import { yamlProblem } from './yaml-problem.js';

// The web configuration file node_exporter reads (exporter-toolkit), so one file and one scrape job serve both:
// tls_server_config and basic_auth_users with bcrypt hashes. Other keys the toolkit knows are refused by name, not
// silently ignored: an operator who sets one expects it to act.

const SETTING = 'statusWebConfigFile (DEVICE_AGENT_STATUS_WEB_CONFIG_FILE)';

// The YAML parser and bcrypt load when a web configuration file asks for them, not in every daemon (0.7 MB of heap).
const require = createRequire(import.meta.url);
const yaml = () => require('yaml') as typeof Yaml;
const bcrypt = () => require('bcryptjs') as typeof Bcrypt;
const MAX_BYTES = 1024 * 1024;

const CLIENT_AUTH = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;
export type ClientAuth = (typeof CLIENT_AUTH)[number];
const MIN_VERSIONS = { TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

export interface WebTls {
  cert: string;
  key: string;
  /** Where cert and key were read: the endpoint reads them again when they change (tls-reload.ts). */
  certFile: string;
  keyFile: string;
  ca?: string;
  clientAuth: ClientAuth;
  minVersion: 'TLSv1.2' | 'TLSv1.3';
}

export interface WebConfig {
  tls?: WebTls;
  /** User name to bcrypt hash; empty: no authentication. */
  users: ReadonlyMap<string, string>;
}

/** Reads and checks the file; every problem is a ConfigError naming the setting, the file and the key. */
export function loadWebConfig(path: string): WebConfig {
  const text = readRegular(path, path);
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    throw new ConfigError(SETTING, `${path} is not YAML: ${yamlProblem(err)}`);
  }
  if (doc === null || doc === undefined) return { users: new Map() };
  const top = object(doc, path, 'the file');
  refuseOthers(top, ['tls_server_config', 'basic_auth_users'], path, '');
  const users = new Map<string, string>();
  let tls: WebTls | undefined;
  if (top.tls_server_config !== undefined && top.tls_server_config !== null) {
    const given = object(top.tls_server_config, path, 'tls_server_config');
    refuseOthers(given, ['cert_file', 'key_file', 'client_ca_file', 'client_auth_type', 'min_version'], path, 'tls_server_config.');
    const where = (key: string) => {
      const v = given[key];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string') throw new ConfigError(SETTING, `${path}: tls_server_config.${key} must be a file path`);
      // Relative to the web config file, as exporter-toolkit reads them.
      return isAbsolute(v) ? v : resolve(dirname(path), v);
    };
    const file = (key: string) => {
      const at = where(key);
      return at === undefined ? undefined : readRegular(at, `${path}: tls_server_config.${key} (${at})`);
    };
    const cert = file('cert_file');
    const key = file('key_file');
    if (!cert || !key) throw new ConfigError(SETTING, `${path}: tls_server_config needs both cert_file and key_file`);
    const ca = file('client_ca_file');
    const authType = given.client_auth_type ?? (ca ? 'RequireAndVerifyClientCert' : 'NoClientCert');
    if (!CLIENT_AUTH.includes(authType as ClientAuth)) {
      throw new ConfigError(SETTING, `${path}: tls_server_config.client_auth_type must be one of ${CLIENT_AUTH.join(', ')}`);
    }
    if ((authType === 'VerifyClientCertIfGiven' || authType === 'RequireAndVerifyClientCert') && !ca) {
      throw new ConfigError(SETTING, `${path}: tls_server_config.client_auth_type ${String(authType)} needs client_ca_file`);
    }
    const min = given.min_version ?? 'TLS12';
    if (!(typeof min === 'string' && min in MIN_VERSIONS)) throw new ConfigError(SETTING, `${path}: tls_server_config.min_version must be TLS12 or TLS13`);
    tls = {
      cert,
      key,
      certFile: where('cert_file')!,
      keyFile: where('key_file')!,
      ...(ca && { ca }),
      clientAuth: authType as ClientAuth,
      minVersion: MIN_VERSIONS[min as keyof typeof MIN_VERSIONS],
    };
  }
  if (top.basic_auth_users !== undefined && top.basic_auth_users !== null) {
    for (const [user, hash] of Object.entries(object(top.basic_auth_users, path, 'basic_auth_users'))) {
      // Never quote the value: it is a password hash.
      if (typeof hash !== 'string' || !/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) {
        throw new ConfigError(SETTING, `${path}: basic_auth_users.${user} is not a bcrypt hash (make one with: htpasswd -nBC 10 "" | tr -d ':\\n')`);
      }
      if (user.includes(':')) throw new ConfigError(SETTING, `${path}: basic_auth_users: a user name cannot hold ':'`);
      users.set(user, hash);
    }
  }
  // Users without TLS are allowed, as node_exporter allows them; the docs say the password then crosses the network in the clear.
  return { tls, users };
}

/** What a request's Authorization header gets. */
export type AuthAnswer = { kind: 'allowed' } | { kind: 'refused' } | { kind: 'busy'; retryAfterSeconds: number };

interface BasicAuthOptions {
  /** The bcrypt check (tests count the calls). */
  compare?: (password: string, hash: string) => Promise<boolean>;
  /** Monotonic milliseconds, for the budget of checks. */
  now?: () => number;
}

/**
 * The password checks started: a bcrypt check is tens of ms on the agent's one thread, so a flood of wrong passwords
 * would delay reports. 2 a second (about 2 x 70 ms of bcrypt at cost 10 in bcryptjs: a seventh of a core at most), 4 at
 * once after a quiet time; a pair already checked costs none, so a scraper that passed once is not held by the flood.
 */
const CHECKS = { capacity: 4, refillMs: 500 };

/**
 * Basic authentication against the bcrypt hashes. A bcrypt check costs tens of ms, so a pair that passed is remembered
 * as an HMAC under a key of this process (nothing to test guesses against offline); checks beyond the budget are
 * answered busy, whoever sent them.
 */
export class BasicAuth {
  private readonly passed = new Map<string, Buffer>();
  private readonly key = randomBytes(32);
  private readonly budget = new TokenBucket(CHECKS);
  /** Checked against for an unknown user, so that the answer takes as long as for a known one; made at the first need. */
  private static decoy: string | undefined;

  constructor(
    private readonly users: ReadonlyMap<string, string>,
    private readonly options: BasicAuthOptions = {},
  ) {}

  get required() {
    return this.users.size > 0;
  }

  /** Whether an Authorization header names a user and its password, or the budget of checks is spent; any, with no user configured. */
  async check(header: string | undefined): Promise<AuthAnswer> {
    // The server asks only when a user is configured; the answer is kept here too, for a caller that does not test first.
    if (!this.required) return ALLOWED;
    const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
    if (!m) return REFUSED;
    const pair = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) return REFUSED;
    const user = pair.slice(0, colon);
    const password = pair.slice(colon + 1);
    const hash = this.users.get(user);
    const digest = createHmac('sha256', this.key).update(`${user}\0${password}`).digest();
    const known = this.passed.get(user);
    if (hash && known && timingSafeEqual(known, digest)) return ALLOWED;
    const now = this.options.now?.() ?? performance.now();
    const wait = this.budget.freeAt(now) - now;
    if (wait > 0) return { kind: 'busy', retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    this.budget.spend(now);
    const against = hash ?? (BasicAuth.decoy ??= bcrypt().hashSync('device-agent decoy', 10));
    const ok = await (this.options.compare?.(password, against) ?? bcrypt().compare(password, against));
    if (ok && hash) {
      this.passed.set(user, digest);
      return ALLOWED;
    }
    return REFUSED;
  }
}

const ALLOWED: AuthAnswer = { kind: 'allowed' };
const REFUSED: AuthAnswer = { kind: 'refused' };

function object(v: unknown, path: string, where: string) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(SETTING, `${path}: ${where} must be a mapping`);
  return v as Record<string, unknown>;
}

function refuseOthers(o: Record<string, unknown>, known: readonly string[], path: string, prefix: string) {
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) {
      throw new ConfigError(SETTING, `${path}: ${prefix}${key} is not read by device-agent (it reads ${known.map((k) => prefix + k).join(', ')})`);
    }
  }
}

/** A certificate and its key read again (a rotation): the same checks as at start. */
export function readTlsPair(certFile: string, keyFile: string) {
  return { cert: readRegular(certFile, certFile), key: readRegular(keyFile, keyFile) };
}

/** A regular file's text: a FIFO or a device node would hang or flood the start. */
function readRegular(path: string, what: string) {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ConfigError(SETTING, `cannot read ${what}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(SETTING, `${what} is not a regular file`);
    if (stat.size > MAX_BYTES) throw new ConfigError(SETTING, `${what} is ${stat.size} bytes, more than such a file holds`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
