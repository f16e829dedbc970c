import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, runAgent } from '../e2e/agent-process.js';

// A bad --config file stops the daemon at once with exit 2 and a message that
// names the file or the setting, before it touches adb or the cloud.

const dir = mkdtempSync(join(tmpdir(), 'da-badconfig-'));

const cases: Array<{ name: string; content: string | undefined; says: RegExp }> = [
  { name: 'not JSON', content: '{"schedule": "* * * * *",', says: /bad-0\.json is not valid JSON/ },
  { name: 'not an object', content: '["schedule"]', says: /bad-1\.json must hold a JSON object/ },
  { name: 'an unknown (misspelt) key', content: '{"shedule": "* * * * *"}', says: /shedule: unknown setting in .*bad-2\.json/ },
  { name: 'a number as a string', content: '{"probeConcurrency": "16"}', says: /probeConcurrency \(DEVICE_AGENT_PROBE_CONCURRENCY\): must be a whole number/ },
  { name: 'a bad cron expression', content: '{"schedule": "every minute"}', says: /schedule \(DEVICE_AGENT_SCHEDULE\): must have 5 fields/ },
  { name: 'a value out of range', content: '{"changeDebounceMs": 99999}', says: /changeDebounceMs \(DEVICE_AGENT_CHANGE_DEBOUNCE_MS\): must be at most 1500/ },
  { name: 'a nested key of the wrong type', content: '{"support": {"appiumDisabled": "no"}}', says: /support\.appiumDisabled .*must be true or false/ },
  { name: 'a file that is not there', content: undefined, says: /cannot read .*bad-7\.json/ },
  // node-cron, which the agent used before, took "L" (last day of the month).
  { name: 'a cron with node-cron\'s L', content: '{"schedule": "0 3 L * *"}', says: /schedule \(DEVICE_AGENT_SCHEDULE\): "L" uses node-cron's L, W or # extensions/ },
];

describe('faults: bad configuration file', () => {
  it.each(cases.map((c, i) => ({ ...c, i })))('$name: exit 2 naming it', async ({ content, says, i }) => {
    const file = join(dir, `bad-${i}.json`);
    if (content !== undefined) writeFileSync(file, content);
    const run = await runAgent(
      ['run', '--config', file],
      baseEnv({
        // Everything else is valid, and nothing listens there: a daemon that
        // started anyway would be seen failing to reach it, not exiting 2.
        DEVICE_AGENT_BASE_URL: 'http://127.0.0.1:9/v1',
        DEVICE_AGENT_USERNAME: 'agent@example.test',
        DEVICE_AGENT_API_KEY: 'test-api-key-config-fault',
        ADB_SERVER_SOCKET: 'tcp:127.0.0.1:9',
        DEVICE_AGENT_STATUS_LISTEN: 'off',
      }),
      20_000,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/configuration error/);
    expect(run.stderr).toMatch(says);
    expect(run.stdout).not.toMatch(/device-agent started/);
    expect(run.stdout + run.stderr).not.toContain('test-api-key-config-fault');
  });
});
