import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigErrors } from '../../src/config/errors.js';
import { loadConfig, loadDefaults, loadSettings } from '../../src/config/load.js';
import { envName, formerEnvName, schema } from '../../src/config/schema.js';

function file(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'da-config-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults in one place', () => {
  const shipped = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as Record<string, unknown>;

  it("a feature's settings have their defaults in its fragment, config/default.json holds none of them, and the core's are all there", async () => {
    const features = new URL('../../src/features/', import.meta.url);
    const keys = new Set<string>();
    for (const entry of readdirSync(features, { withFileTypes: true })) {
      if (!entry.isDirectory() || !readdirSync(new URL(`${entry.name}/`, features)).includes('settings.ts')) continue;
      const fragment = (await import(new URL(`${entry.name}/settings.ts`, features).href)) as Record<string, unknown>;
      for (const group of Object.values(fragment))
        if (typeof group === 'object' && group !== null && !Array.isArray(group)) for (const k of Object.keys(group)) if (Object.hasOwn(schema, k)) keys.add(k);
    }
    expect(keys.size).toBeGreaterThan(50);
    const withDefault = Object.entries(schema).flatMap(([key, field]) => ('default' in field ? [key] : []));
    expect(withDefault.sort()).toEqual([...keys].sort());
    expect(Object.keys(shipped).filter((group) => [...keys].some((k) => k === group || k.startsWith(`${group}.`)))).toEqual([]);
    expect(loadDefaults().get('quarantine.failures')).toBe(3);
  });

  it("a defaults file (the package's) may set a feature's default, and wins over its fragment", () => {
    const defaultsPath = file({ ...shipped, recovery: { powerCycleCommand: '/usr/lib/device-agent/bin/hub-request' } });
    expect(loadDefaults(defaultsPath).get('recovery.powerCycleCommand')).toBe('/usr/lib/device-agent/bin/hub-request');
    const settings = loadSettings({ defaultsPath, env: { DEVICE_AGENT_BASE_URL: 'https://cloud.example/v1', DEVICE_AGENT_USERNAME: 'u' } });
    expect(settings.recovery.powerCycleCommand).toBe('/usr/lib/device-agent/bin/hub-request');
    expect(settings.recovery.powerCycle).toBe(false);
    expect(settings.quarantine.failures).toBe(3);
  });
});

describe('loadSettings', () => {
  it('takes defaults, then the file, then the environment', () => {
    const path = file({ baseUrl: 'https://file.example/v1', jitterSeconds: 5, support: { appiumDisabled: true } });
    const settings = loadSettings({ configPath: path, env: { DEVICE_AGENT_JITTER_SECONDS: '7' } });
    expect(settings.baseUrl).toBe('https://file.example/v1');
    expect(settings.jitterSeconds).toBe(7);
    expect(settings.support.appiumDisabled).toBe(true);
    expect(settings.support.setTimeZoneDisabled).toBe(false);
    expect(settings.schedule).toBe('* * * * *');
  });

  it('overrides nested keys and lists from the environment', () => {
    const settings = loadSettings({
      env: { DEVICE_AGENT_SUPPORT_SET_TIME_ZONE_DISABLED: 'yes', DEVICE_AGENT_HIDDEN_DEVICES: 'a1, b2,,' },
    });
    expect(settings.support.setTimeZoneDisabled).toBe(true);
    expect(settings.hiddenDevices).toEqual(['a1', 'b2']);
  });

  it('names the key and the variable of a bad value', () => {
    const err = errorOf(() => loadSettings({ env: { DEVICE_AGENT_SCHEDULE: '61 * * * *' } }));
    expect(err.message).toContain('schedule (DEVICE_AGENT_SCHEDULE)');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_SCHEDULE: '* * *' } })).message).toContain('5 fields');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_BASE_URL: 'not a url' } })).message).toContain('DEVICE_AGENT_BASE_URL');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_JITTER_SECONDS: 'ten' } })).key).toBe('DEVICE_AGENT_JITTER_SECONDS');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_LOG_LEVEL: 'loud' } })).message).toContain('logLevel');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_STATUS_LISTEN: 'nowhere' } })).message).toContain('statusListen');
  });

  it('refuses a charge low mark at or above the high mark, and reads charge.ways from the environment', () => {
    const err = errorOf(() => loadSettings({ env: { DEVICE_AGENT_CHARGE_LOW_PERCENT: '80' } }));
    expect(err.message).toContain('charge.lowPercent (DEVICE_AGENT_CHARGE_LOW_PERCENT)');
    expect(err.message).toContain('must be below charge.highPercent (80), got 80');
    const settings = loadSettings({ env: { DEVICE_AGENT_CHARGE_LOW_PERCENT: '79', DEVICE_AGENT_CHARGE_WAYS: 'model:SM-S9*=uhubctl,R58X=off' } });
    expect(settings.charge).toEqual({ ways: ['model:SM-S9*=uhubctl', 'R58X=off'], command: '', highPercent: 80, lowPercent: 79, maxPauseSeconds: 7200 });
    expect(loadSettings({ env: { DEVICE_AGENT_CHARGE_WAYS: 'R58X=samsung' } }).charge.ways).toEqual(['R58X=samsung']);
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_CHARGE_WAYS: 'R58X=command' } })).message).toContain(
      'charge.command (DEVICE_AGENT_CHARGE_COMMAND): is needed',
    );
    expect(
      loadSettings({ env: { DEVICE_AGENT_CHARGE_WAYS: 'R58X=command', DEVICE_AGENT_CHARGE_COMMAND: 'hub-power {hub} {port} {action}' } }).charge.command,
    ).toBe('hub-power {hub} {port} {action}');
  });

  it('refuses plain http to another host unless allowPlainHttp says so, and then warns; loopback and https are fine', () => {
    const err = errorOf(() => loadSettings({ env: { DEVICE_AGENT_BASE_URL: 'http://cloud.lab.example:8080/v1' } }));
    expect(err.message).toContain('baseUrl (DEVICE_AGENT_BASE_URL): is plain http to another host (cloud.lab.example:8080)');
    expect(err.message).toContain('DEVICE_AGENT_ALLOW_PLAIN_HTTP=true');
    const allowed = loadConfig({ env: { DEVICE_AGENT_BASE_URL: 'http://10.1.2.3/v1', DEVICE_AGENT_ALLOW_PLAIN_HTTP: 'true' } });
    expect(allowed.settings.baseUrl).toBe('http://10.1.2.3/v1');
    expect(allowed.warnings).toEqual([
      { name: 'DEVICE_AGENT_ALLOW_PLAIN_HTTP', message: expect.stringContaining('plain http (10.1.2.3): the API key crosses the network unencrypted') },
    ]);
    for (const url of ['http://127.0.0.1:8080/v1', 'http://localhost/v1', 'http://[::1]:9/v1', 'https://cloud.example.com/v1']) {
      expect(loadConfig({ env: { DEVICE_AGENT_BASE_URL: url } }).warnings).toEqual([]);
    }
  });

  it('accepts a 6-field schedule with seconds first', () => {
    expect(loadSettings({ env: { DEVICE_AGENT_SCHEDULE: '*/10 * * * * *' } }).schedule).toBe('*/10 * * * * *');
  });

  it('rejects unknown keys, wrong types and unreadable files, naming them', () => {
    expect(errorOf(() => loadSettings({ configPath: file({ baseURL: 'x' }) })).key).toBe('baseURL');
    expect(errorOf(() => loadSettings({ configPath: file({ baseURL: 'x' }) })).message).toMatch(/unknown setting in .*; did you mean baseUrl\?$/);
    expect(errorOf(() => loadSettings({ configPath: file({ probeConcurrency: '4' }) })).message).toContain('probeConcurrency');
    expect(errorOf(() => loadSettings({ configPath: file('{ not json') })).message).toContain('not valid JSON');
    expect(errorOf(() => loadSettings({ configPath: '/nonexistent/device-agent.json' })).message).toContain('cannot read');
  });
});

describe('loadConfig', () => {
  it('reports every bad setting of the file and the variables in one error, with the warnings', () => {
    const path = file({ jitterSeconds: '5', helth: {}, health: { storageMinFree: 3 }, shutdownTimeoutSeconds: 20 });
    const err = errorOf(() =>
      loadConfig({ configPath: path, env: { DEVICE_AGENT_PROBE_CONCURRENCY: 'many', DEVICE_AGENT_LOG_LEVEL: 'loud', DEVICE_AGENT_LOGFORMAT: 'json' } }),
    );
    expect(err).toBeInstanceOf(ConfigErrors);
    expect(err.problems.map((p) => p.message)).toEqual([
      `helth: unknown setting in ${path}; did you mean health?`,
      `health.storageMinFree: unknown setting in ${path}; did you mean health.storageMinFreeMiB?`,
      'DEVICE_AGENT_PROBE_CONCURRENCY: must be a whole number, got "many"',
      'jitterSeconds (DEVICE_AGENT_JITTER_SECONDS): must be a whole number, got "5"',
      'shutdownTimeoutSeconds (DEVICE_AGENT_SHUTDOWN_TIMEOUT_SECONDS): must be at most 9, got 20',
      'logLevel (DEVICE_AGENT_LOG_LEVEL): must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    ]);
    expect((err as ConfigErrors).warnings.map((w) => w.name)).toEqual(['DEVICE_AGENT_LOGFORMAT']);
  });

  it('names a variable it cannot read once, not also the file value it would have replaced', () => {
    const err = errorOf(() => loadConfig({ configPath: file({ jitterSeconds: '5' }), env: { DEVICE_AGENT_JITTER_SECONDS: 'ten' } }));
    expect(err.problems.map((p) => p.message)).toEqual(['DEVICE_AGENT_JITTER_SECONDS: must be a whole number, got "ten"']);
  });

  it('returns the warnings and the variables read alongside valid settings', () => {
    const loaded = loadConfig({ env: { DEVICE_AGENT_BASEURL: 'https://x/v1', DEVICE_AGENT_USERNAME: 'u', DEVICE_AGENT_BUILD_NUMBER: '7' } });
    expect(loaded.settings.baseUrl).toBe('');
    expect(loaded.variables).toEqual(['DEVICE_AGENT_BUILD_NUMBER', 'DEVICE_AGENT_USERNAME']);
    expect(loaded.warnings.map((w) => w.message)).toEqual([expect.stringContaining('did you mean DEVICE_AGENT_BASE_URL?')]);
  });

  it('reads health.storageMinFreeMiB from ..._MIB, and from the old ..._MI_B with a warning', () => {
    expect(loadConfig({ env: { DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB: '2048' } }).settings.health.storageMinFreeMiB).toBe(2048);
    const old = loadConfig({ env: { DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B: '512' } });
    expect(old.settings.health.storageMinFreeMiB).toBe(512);
    expect(old.warnings).toHaveLength(1);
  });

  it("puts the command line's values over every source", () => {
    const settings = loadSettings({ env: { DEVICE_AGENT_LOG_LEVEL: 'debug' }, overrides: new Map([['logLevel', 'error']]) });
    expect(settings.logLevel).toBe('error');
  });

  it('leaves ios unset by default: unset, true and false mean three things', () => {
    expect(loadSettings({ env: {} }).ios).toBeUndefined();
    expect(loadSettings({ env: { DEVICE_AGENT_IOS: 'true' } }).ios).toBe(true);
  });
});

describe('envName', () => {
  it('maps camelCase and nested keys to DEVICE_AGENT_ variables', () => {
    expect(envName('baseUrl')).toBe('DEVICE_AGENT_BASE_URL');
    expect(envName('apiKeyFile')).toBe('DEVICE_AGENT_API_KEY_FILE');
    expect(envName('support.networkPayloadCaptureDisabled')).toBe('DEVICE_AGENT_SUPPORT_NETWORK_PAYLOAD_CAPTURE_DISABLED');
  });

  it('keeps a unit whole: ..._MIB, not ..._MI_B (the old name stays readable)', () => {
    expect(envName('health.storageMinFreeMiB')).toBe('DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB');
    expect(formerEnvName('health.storageMinFreeMiB')).toBe('DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B');
    expect(formerEnvName('baseUrl')).toBeUndefined();
  });

  it('gives no setting a variable with a one-letter word, and no two settings one variable', () => {
    const names = Object.keys(schema).map(envName);
    expect(names.filter((n) => /_[A-Z0-9](_|$)/.test(n))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('moved settings (MOVED_SETTINGS)', () => {
  it("health's battery wear figures, moved to wear, still work in a settings file, with a warning; the new key wins", () => {
    const old = loadConfig({ configPath: file({ health: { batteryMaxCycles: 500, batteryMinHealthPercent: 70 } }), env: {} });
    expect(old.settings.wear).toMatchObject({ batteryMaxCycles: 500, batteryMinHealthPercent: 70 });
    expect(old.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^health\.batteryMaxCycles in .* is the old name of wear\.batteryMaxCycles: it still works for now, but rename it$/),
      expect.stringMatching(/^health\.batteryMinHealthPercent in .* is the old name of wear\.batteryMinHealthPercent/),
    ]);
    const both = loadSettings({ configPath: file({ wear: { batteryMaxCycles: 900 }, health: { batteryMaxCycles: 500 } }), env: {} });
    expect(both.wear.batteryMaxCycles).toBe(900);
  });

  it('and under their old variables', () => {
    const loaded = loadConfig({ env: { DEVICE_AGENT_HEALTH_BATTERY_MAX_CYCLES: '600' } });
    expect(loaded.settings.wear.batteryMaxCycles).toBe(600);
    expect(loaded.warnings.map((w) => w.name)).toEqual(['DEVICE_AGENT_HEALTH_BATTERY_MAX_CYCLES']);
  });
});

describe('proxy and CA settings', () => {
  it('take the conventional variables as defaults, lower case first as curl reads them', () => {
    const settings = loadSettings({
      env: { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', HTTP_PROXY: 'http://plain:8080', NO_PROXY: '.corp' },
    });
    expect(settings.httpsProxy).toBe('http://lower:3128');
    expect(settings.httpProxy).toBe('http://plain:8080');
    expect(settings.noProxy).toBe('.corp');
    expect(loadSettings({ env: {} })).not.toHaveProperty('httpsProxy');
  });

  it('let DEVICE_AGENT_* and the file win over the conventional variables; "" in the file means no proxy', () => {
    const env = { HTTPS_PROXY: 'http://host-wide:3128', NO_PROXY: '*' };
    expect(loadSettings({ env: { ...env, DEVICE_AGENT_HTTPS_PROXY: 'http://agent:3128' } }).httpsProxy).toBe('http://agent:3128');
    const fromFile = loadSettings({ configPath: file({ httpsProxy: 'http://file:3128', noProxy: '' }), env });
    expect(fromFile.httpsProxy).toBe('http://file:3128');
    expect(fromFile.noProxy).toBe('');
    expect(loadSettings({ configPath: file({ httpsProxy: '' }), env }).httpsProxy).toBe('');
  });

  it('read httpsProxy from the https-proxy systemd credential, after the file and DEVICE_AGENT_HTTPS_PROXY, before https_proxy', () => {
    // As systemd hands it over (LoadCredential=https-proxy:/etc/device-agent/https-proxy): a file, its line end kept.
    const credentials = mkdtempSync(join(tmpdir(), 'da-credentials-'));
    writeFileSync(join(credentials, 'https-proxy'), 'http://lab:p%40ss@proxy.corp.example:3128\n', { mode: 0o600 });
    const env = { CREDENTIALS_DIRECTORY: credentials, https_proxy: 'http://host-wide:3128' };
    expect(loadSettings({ env }).httpsProxy).toBe('http://lab:p%40ss@proxy.corp.example:3128');
    expect(loadSettings({ env: { ...env, DEVICE_AGENT_HTTPS_PROXY: 'http://agent:3128' } }).httpsProxy).toBe('http://agent:3128');
    expect(loadSettings({ configPath: file({ httpsProxy: '' }), env }).httpsProxy).toBe('');
    // No such credential (the unit hands over only api-key): the host's variables as before.
    expect(loadSettings({ env: { ...env, CREDENTIALS_DIRECTORY: mkdtempSync(join(tmpdir(), 'da-credentials-')) } }).httpsProxy).toBe('http://host-wide:3128');
  });

  it('read httpProxy from the http-proxy credential, after DEVICE_AGENT_HTTP_PROXY, before http_proxy (how the packaged wrapper hands over a password)', () => {
    const credentials = mkdtempSync(join(tmpdir(), 'da-credentials-'));
    writeFileSync(join(credentials, 'http-proxy'), 'http://lab:p%40ss@proxy.corp.example:3128\n', { mode: 0o600 });
    const env = { CREDENTIALS_DIRECTORY: credentials, http_proxy: 'http://host-wide:3128' };
    expect(loadSettings({ env }).httpProxy).toBe('http://lab:p%40ss@proxy.corp.example:3128');
    expect(loadSettings({ env: { ...env, DEVICE_AGENT_HTTP_PROXY: 'http://agent:3128' } }).httpProxy).toBe('http://agent:3128');
    expect(loadSettings({ env }).httpsProxy ?? '').toBe('');
  });

  it('refuses a bad proxy in the credential naming the credential, never its password', () => {
    const credentials = mkdtempSync(join(tmpdir(), 'da-credentials-'));
    writeFileSync(join(credentials, 'https-proxy'), 'socks5h://lab:hunter2-secret@proxy:1080\n');
    const err = errorOf(() => loadSettings({ env: { CREDENTIALS_DIRECTORY: credentials } }));
    expect(err.message).toContain('httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)');
    expect(err.message).toContain('socks5h:// proxies is not supported');
    expect(err.message).not.toContain('hunter2-secret');
  });

  it('refuses a proxy it cannot speak, naming where it came from and never the password', () => {
    const err = errorOf(() => loadSettings({ env: { HTTPS_PROXY: 'socks5h://lab:hunter2-secret@proxy:1080' } }));
    expect(err.message).toContain('httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)');
    expect(err.message).toContain('socks5h:// proxies is not supported');
    expect(err.message).not.toContain('hunter2-secret');
    expect(errorOf(() => loadSettings({ env: { DEVICE_AGENT_HTTP_PROXY: 'https://proxy:3128' } })).message).toContain('httpProxy (DEVICE_AGENT_HTTP_PROXY');
  });

  it('trust the system store by default; DEVICE_AGENT_SYSTEM_CA=false turns it off', () => {
    expect(loadSettings({ env: {} }).systemCa).toBe(true);
    expect(loadSettings({ env: { DEVICE_AGENT_SYSTEM_CA: 'false', DEVICE_AGENT_CA_FILE: '/etc/device-agent/ca.pem' } })).toMatchObject({
      systemCa: false,
      caFile: '/etc/device-agent/ca.pem',
    });
  });
});
