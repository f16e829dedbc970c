import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import { envName, schema } from '../../src/config/schema.js';

// The files an operator copies (config.example.json, agent.env.example) and
// the variables the container files set must stay in step with the settings
// schema: a renamed setting would otherwise be ignored or, in the JSON file,
// stop the agent with a configuration error on a lab host.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Read by adb-compatible code or by the container entrypoint, not by the schema.
const foreignNames = new Set(['ADB_SERVER_SOCKET', 'ANDROID_ADB_SERVER_PORT', 'DEVICE_AGENT_START_ADB']);
// The conventional names some settings default to (HTTPS_PROXY, NO_PROXY, ...).
const conventionalNames = Object.values(schema).flatMap((field) => ('envDefault' in field ? field.envDefault : []));
const knownNames = new Set([...Object.keys(schema).map(envName), ...conventionalNames, ...foreignNames]);

/** NAME=value lines of a systemd EnvironmentFile, the commented-out examples included. */
function exampleAssignments(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const match = /^#?([A-Z][A-Z0-9_]*)=(.*)$/.exec(raw.trim());
    if (match?.[1] !== undefined) found.set(match[1], match[2] ?? '');
  }
  return found;
}

describe('operator examples', () => {
  it('config.example.json loads as the --config file', async () => {
    const path = join(root, 'systemd/config.example.json');
    const example = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    const settings = loadSettings({ configPath: path, env: {} });
    expect(settings.baseUrl).toBe(example.baseUrl);
    expect(settings.username).toBe(example.username);
  });

  it('agent.env.example names only known variables, with values the agent accepts', async () => {
    const assignments = exampleAssignments(await readFile(join(root, 'systemd/agent.env.example'), 'utf8'));
    expect(assignments.size).toBeGreaterThan(5);
    for (const name of assignments.keys()) expect(knownNames, name).toContain(name);
    const env = Object.fromEntries([...assignments].filter(([name]) => name.startsWith('DEVICE_AGENT_')));
    expect(() => loadSettings({ env })).not.toThrow();
  });

  it('the container files set only known DEVICE_AGENT_ variables', async () => {
    for (const file of ['Dockerfile', 'compose.yaml']) {
      const text = await readFile(join(root, file), 'utf8');
      const names = new Set(text.match(/\bDEVICE_AGENT_[A-Z0-9_]+/g) ?? []);
      expect(names.size, file).toBeGreaterThan(0);
      for (const name of names) expect(knownNames, `${file}: ${name}`).toContain(name);
    }
  });

  it('the example parser keeps names and values and skips prose', () => {
    const parsed = exampleAssignments('# a comment = not this\n#A_B=1 2\nC=x=y\nlower=no\n');
    expect([...parsed]).toEqual([
      ['A_B', '1 2'],
      ['C', 'x=y'],
    ]);
  });
});
