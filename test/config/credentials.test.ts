import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCredentials } from '../../src/config/credentials.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadSettings } from '../../src/config/load.js';
import { resolveNodeId } from '../../src/config/node-id.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'da-cred-'));

describe('resolveCredentials', () => {
  it('prefers the variable, then the key file, then the systemd credential', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'api-key'), 'from-credential\n');
    writeFileSync(join(dir, 'key.txt'), '  from-file \n');
    const base = { DEVICE_AGENT_USERNAME: 'lab@example.com', CREDENTIALS_DIRECTORY: dir };
    const s1 = loadSettings({ env: { ...base, DEVICE_AGENT_API_KEY: 'from-env', DEVICE_AGENT_API_KEY_FILE: join(dir, 'key.txt') } });
    expect(resolveCredentials(s1, base).apiKey).toBe('from-env');
    const s2 = loadSettings({ env: { ...base, DEVICE_AGENT_API_KEY_FILE: join(dir, 'key.txt') } });
    expect(resolveCredentials(s2, base).apiKey).toBe('from-file');
    const s3 = loadSettings({ env: base });
    const c3 = resolveCredentials(s3, base);
    expect(c3.apiKey).toBe('from-credential');
    expect(c3.source).toBe(join(dir, 'api-key'));
  });

  it("names the credential by the file it was loaded from when the loader says so (the package's wrapper), not by the per-run copy", () => {
    const dir = tmp();
    writeFileSync(join(dir, 'api-key'), 'from-credential\n');
    const env = { DEVICE_AGENT_USERNAME: 'lab@example.com', CREDENTIALS_DIRECTORY: dir, DEVICE_AGENT_API_KEY_SOURCE: '/etc/device-agent/api-key' };
    const c = resolveCredentials(loadSettings({ env }), env);
    expect(c).toMatchObject({ apiKey: 'from-credential', source: '/etc/device-agent/api-key' });
    // An empty copy is blamed on that file too; a key given otherwise keeps its own name.
    writeFileSync(join(dir, 'api-key'), '\n');
    expect(() => resolveCredentials(loadSettings({ env }), env)).toThrow(/\/etc\/device-agent\/api-key is empty/);
    const given = { ...env, DEVICE_AGENT_API_KEY: 'k' };
    expect(resolveCredentials(loadSettings({ env: given }), given).source).toBe('DEVICE_AGENT_API_KEY');
  });

  it('names what is missing without showing a key', () => {
    expect(() => resolveCredentials(loadSettings({ env: {} }), {})).toThrow(/DEVICE_AGENT_USERNAME/);
    expect(() => resolveCredentials(loadSettings({ env: { DEVICE_AGENT_USERNAME: 'u' } }), {})).toThrow(/DEVICE_AGENT_API_KEY/);
    const s = loadSettings({ env: { DEVICE_AGENT_USERNAME: 'u', DEVICE_AGENT_API_KEY_FILE: '/nonexistent/key' } });
    expect(() => resolveCredentials(s, {})).toThrow(/DEVICE_AGENT_API_KEY_FILE.*ENOENT/);
  });

  it('names the username and the key together when both are missing', () => {
    let error: unknown;
    try {
      resolveCredentials(loadSettings({ env: {} }), {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.key)).toEqual(['username (DEVICE_AGENT_USERNAME)', 'apiKey (DEVICE_AGENT_API_KEY)']);
  });
});

describe('resolveNodeId', () => {
  it('generates the id once and keeps it in the state directory', () => {
    const dir = join(tmp(), 'state');
    const settings = loadSettings({ env: { DEVICE_AGENT_STATE_DIR: dir } });
    const first = resolveNodeId(settings, {});
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(join(dir, 'node-id'), 'utf8').trim()).toBe(first);
    expect(resolveNodeId(settings, {})).toBe(first);
  });

  it('uses $STATE_DIRECTORY from systemd and a configured id as given', () => {
    const dir = tmp();
    const settings = loadSettings({ env: {} });
    const id = resolveNodeId(settings, { STATE_DIRECTORY: dir });
    expect(readFileSync(join(dir, 'node-id'), 'utf8').trim()).toBe(id);
    expect(resolveNodeId(loadSettings({ env: { DEVICE_AGENT_NODE_ID: 'lab-7' } }), {})).toBe('lab-7');
  });

  it('names the setting when the state directory cannot be written', () => {
    const blocker = join(tmp(), 'file');
    writeFileSync(blocker, 'x');
    const settings = loadSettings({ env: { DEVICE_AGENT_STATE_DIR: join(blocker, 'sub') } });
    expect(() => resolveNodeId(settings, {})).toThrow(/DEVICE_AGENT_STATE_DIR/);
  });
});
