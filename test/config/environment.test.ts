import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownVariableNames, readEnvironment } from '../../src/config/environment.js';
import { envName, schema } from '../../src/config/schema.js';
import { otherVariables } from '../../src/config/variables.js';
import { docPath } from '../../src/util/package.js';
import { platformVariables } from '../../src/agent/platforms.js';

const root = join(import.meta.dirname, '../..');

describe('readEnvironment', () => {
  it.each(['0', 'false', ' '])('warns that NODE_TLS_REJECT_UNAUTHORIZED=%j is ignored, and names the settings that trust a private CA', (value) => {
    const reading = readEnvironment({ NODE_TLS_REJECT_UNAUTHORIZED: value });
    expect(reading.warnings).toHaveLength(1);
    expect(reading.warnings[0]).toMatchObject({ name: 'NODE_TLS_REJECT_UNAUTHORIZED' });
    expect(reading.warnings[0]!.message).toMatch(/is set but ignored: device-agent always checks the cloud's certificate.*DEVICE_AGENT_CA_FILE/);
  });

  it('says nothing of NODE_TLS_REJECT_UNAUTHORIZED=1, the default', () => {
    expect(readEnvironment({ NODE_TLS_REJECT_UNAUTHORIZED: '1' }).warnings).toEqual([]);
  });

  it("reads the settings' variables and names them, never their values; empty ones are unset", () => {
    const reading = readEnvironment({ DEVICE_AGENT_BASE_URL: 'https://x/v1', DEVICE_AGENT_NODE_ID: '', HOME: '/root', DEVICE_AGENT_JITTER_SECONDS: '3' });
    expect([...reading.values]).toEqual([
      ['baseUrl', { name: 'DEVICE_AGENT_BASE_URL', raw: 'https://x/v1' }],
      ['jitterSeconds', { name: 'DEVICE_AGENT_JITTER_SECONDS', raw: '3' }],
    ]);
    expect(reading.known).toEqual(['DEVICE_AGENT_BASE_URL', 'DEVICE_AGENT_JITTER_SECONDS']);
    expect(reading.warnings).toEqual([]);
  });

  it('warns of each unknown DEVICE_AGENT_ variable, with the closest name, and reads nothing from it', () => {
    const reading = readEnvironment({ DEVICE_AGENT_BASEURL: 'https://x/v1', DEVICE_AGENT_USER: 'u', DEVICE_AGENT_FOO: '1', OTHER_THING: '1' });
    expect(reading.values.size).toBe(0);
    expect(reading.known).toEqual([]);
    expect(reading.warnings.map((w) => w.message)).toEqual([
      'DEVICE_AGENT_BASEURL is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_BASE_URL?',
      // The settings reference where it is on this host (a checkout's here, /usr/share/doc/device-agent's on a packaged host).
      `DEVICE_AGENT_FOO is set but device-agent has no such variable, so it is ignored; every variable is listed in ${docPath('docs/reference/configuration.md')}`,
      'DEVICE_AGENT_USER is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_USERNAME?',
    ]);
  });

  it('knows the variables read on purpose that are not settings', () => {
    const reading = readEnvironment({ DEVICE_AGENT_BUILD_NUMBER: '42', DEVICE_AGENT_START_ADB: '1' });
    expect(reading.warnings).toEqual([]);
    expect(reading.known).toEqual(['DEVICE_AGENT_BUILD_NUMBER', 'DEVICE_AGENT_START_ADB']);
  });

  it('still reads the old ..._MI_B name, with a warning; the new name wins when both are set', () => {
    const old = readEnvironment({ DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B: '10' });
    expect(old.values.get('health.storageMinFreeMiB')).toEqual({ name: 'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B', raw: '10' });
    expect(old.warnings.map((w) => w.message)).toEqual([
      'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B is the old name of DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB: it still works for now, but rename it',
    ]);
    const both = readEnvironment({ DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B: '10', DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB: '20' });
    expect(both.values.get('health.storageMinFreeMiB')).toEqual({ name: 'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB', raw: '20' });
    expect(both.warnings.map((w) => w.message)).toEqual([
      'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B is ignored: it is the old name of DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB, which is set too; remove DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B',
    ]);
  });
});

describe('the variables the agent reads', () => {
  /** Every file under dir, recursively. */
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
  const read = (paths: string[]) => paths.map((p) => readFileSync(p, 'utf8')).join('\n');

  it('are all known: every DEVICE_AGENT_ name in src/ and container/, and every env.NAME src/ reads', () => {
    const text = read([...files(join(root, 'src')), ...files(join(root, 'container'))]);
    const known = new Set([...knownVariableNames(), ...Object.keys(otherVariables), ...Object.keys(platformVariables.variables)]);
    const named = new Set(text.match(/\bDEVICE_AGENT_[A-Z0-9_]*[A-Z0-9]\b/g));
    const read_ = new Set([...text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
    expect(named.size).toBeGreaterThan(10);
    expect([...named, ...read_].filter((n) => !known.has(n))).toEqual([]);
  });

  it("other variables never shadow a setting's variable", () => {
    const settings = new Set(Object.keys(schema).map(envName));
    expect([...Object.keys(otherVariables), ...Object.keys(platformVariables.variables)].filter((n) => settings.has(n))).toEqual([]);
  });
});
