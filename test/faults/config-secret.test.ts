import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, runAgent } from '../e2e/agent-process.js';

// Issue 42, 8b: a settings file that does not parse is named with the line,
// the column and what is wrong, and none of its text: `--config` pointed at
// the key file, or an apiKey left unquoted, put the key's first characters
// in the error (JSON.parse's message quotes the text around the error).

const dir = mkdtempSync(join(tmpdir(), 'da-secret-config-'));
const SECRET = 'Zq9Xk7wPsecretApiKey4471abcdef';

const env = (extra: Record<string, string> = {}) =>
  baseEnv({
    DEVICE_AGENT_BASE_URL: 'http://127.0.0.1:9/v1',
    DEVICE_AGENT_USERNAME: 'agent@example.test',
    DEVICE_AGENT_API_KEY: 'test-api-key-config-secret',
    ADB_SERVER_SOCKET: 'tcp:127.0.0.1:9',
    DEVICE_AGENT_STATUS_LISTEN: 'off',
    ...extra,
  });

/** No prefix of the secret of 4 characters or more: each holds the first 4. */
function expectNoSecret(output: string): void {
  expect(output).not.toContain(SECRET.slice(0, 4));
}

describe('faults: a settings file that holds a key and is not JSON', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['--config pointed at the key file', `${SECRET}\n`, /line 1, column 1: a letter where the file should start with '\{' \(is this the settings file\?\)/],
    ['an unquoted apiKey', `{\n  "username": "agent@example.test",\n  "apiKey": ${SECRET}\n}\n`, /line 3, column 13: text without double quotes/],
    ['a single-quoted apiKey', `{"apiKey": '${SECRET}'}`, /line 1, column 12: a single quote/],
  ];
  it.each(cases)('%s: exit 2, the file, line, column and what is wrong, no character of the key', async (_, content, says) => {
    const file = join(dir, `settings-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, content);
    const run = await runAgent(['run', '--config', file], env(), 20_000);
    expect(run.code, run.stderr).toBe(2);
    expectNoSecret(run.stdout + run.stderr);
    expect(run.stderr).toContain(`${file} is not valid JSON: `);
    expect(run.stderr).toMatch(says);
  });
});

describe('faults: a web config file that holds a secret and is not YAML', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a key file given as the web config', `-----BEGIN PRIVATE KEY-----\n${SECRET}\n  ${SECRET}: [\n`, /line \d+, column \d+: /],
    // The yaml package's own first line quoted this one: "Block scalar header includes extra characters: |Zq9X...".
    ["a hash after a block scalar's |", `basic_auth_users:\n  prometheus: |${SECRET}\n    x\n`, /line 2, column 16: something YAML does not expect there/],
    ['an unclosed quote around a hash', `basic_auth_users:\n  prometheus: "${SECRET}\n`, /line \d+, column \d+: a closing quote or bracket missing/],
    ['a bad escape in a hash', `basic_auth_users:\n  prometheus: "${SECRET}\\q"\n`, /line 2, column \d+: a backslash escape YAML does not know/],
  ];
  it.each(cases)('%s: exit 2, the file, line, column and what is wrong, no character of the secret', async (_, content, says) => {
    const file = join(dir, `web-${Math.random().toString(36).slice(2)}.yml`);
    writeFileSync(file, content);
    const run = await runAgent(['run'], env({ DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0', DEVICE_AGENT_STATUS_WEB_CONFIG_FILE: file }), 20_000);
    expect(run.code, run.stderr).toBe(2);
    expectNoSecret(run.stdout + run.stderr);
    expect(run.stderr).toContain(`${file} is not YAML: `);
    expect(run.stderr).toMatch(says);
  });
});
