import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runAgent } from '../e2e/agent-process.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';

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
  {
    name: "a cron with node-cron's L",
    content: '{"schedule": "0 3 L * *"}',
    says: /schedule \(DEVICE_AGENT_SCHEDULE\): "L" uses node-cron's L, W or # extensions/,
  },
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

describe('faults: odd bytes in the configuration', () => {
  // A real adb server (with no phones): once exits 0 only when its listing is whole.
  const adb = new AdbServer();
  beforeAll(() => adb.start());
  afterAll(() => adb.stop());
  const env = (extra: Record<string, string> = {}) =>
    baseEnv({
      DEVICE_AGENT_BASE_URL: 'http://127.0.0.1:9/v1',
      DEVICE_AGENT_USERNAME: 'agent@example.test',
      DEVICE_AGENT_API_KEY: 'test-api-key-config-fault',
      ...adb.env,
      DEVICE_AGENT_STATUS_LISTEN: 'off',
      ...extra,
    });

  it('a UTF-8 byte order mark (Notepad, PowerShell Out-File) is read past, not an invisible "unexpected token"', async () => {
    const file = join(dir, 'bom.json');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"logLevel": "info"}')]));
    const run = await runAgent(['once', '--dry-run', '--config', file], env(), 30_000);
    expect(run.stderr).not.toMatch(/configuration error/);
    expect(run.code).toBe(0);
  });

  const refused: Array<{ name: string; bytes: Buffer; says: RegExp; extra?: Record<string, string> }> = [
    {
      name: 'UTF-16 (Windows PowerShell >)',
      bytes: Buffer.from('\ufeff{"logLevel": "info"}', 'utf16le'),
      says: /utf16\.json is UTF-16 text .*save it as UTF-8/,
    },
    {
      name: 'Latin-1 bytes in a value',
      bytes: Buffer.from('{\n"username": "jos\xe9@example.test"\n}', 'latin1'),
      says: /latin1\.json holds bytes that are not UTF-8 on line 2/,
    },
    {
      name: 'a control character in a value',
      bytes: Buffer.from('{"reachabilityHost": "cloud\\u0007.example"}'),
      says: /reachabilityHost \(DEVICE_AGENT_REACHABILITY_HOST\): holds the control character U\+0007 at position 6/,
    },
  ];
  it.each(refused)('$name: exit 2 naming the file or the setting and what to do', async ({ name, bytes, says }) => {
    const file = join(dir, name.startsWith('UTF-16') ? 'utf16.json' : name.startsWith('Latin') ? 'latin1.json' : 'control.json');
    writeFileSync(file, bytes);
    const run = await runAgent(['run', '--config', file], env(), 20_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(says);
  });

  it('a named pipe or a huge file as --config: exit 2 at once, not a start blocked on the pipe or a file read into memory', async () => {
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, `{"hiddenDevices": [${'"X",'.repeat(600_000)}"Y"]}`);
    for (const [file, says] of [
      [fifo, /config\.fifo is not a regular file .*give the path of a JSON file/],
      [huge, /huge\.json is \d+ bytes; a settings file is a few KB/],
    ] as const) {
      const run = await runAgent(['run', '--config', file], env(), 20_000);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(says);
    }
  });

  it('a carriage return at the end of a variable (an env file with Windows line ends) is trimmed; one inside a value is refused without showing the value', async () => {
    const cloud = new CloudDouble();
    await cloud.start();
    try {
      // Before: the username went out as "agent@example.test\r" and the cloud answered 401.
      const ok = await runAgent(
        ['once'],
        env({
          DEVICE_AGENT_BASE_URL: cloud.url,
          DEVICE_AGENT_USERNAME: `${cloud.username}\r`,
          DEVICE_AGENT_API_KEY: `${cloud.apiKey}\r`,
          DEVICE_AGENT_JITTER_SECONDS: '5\r',
        }),
        30_000,
      );
      expect(ok.code, ok.stderr).toBe(0);
      expect(cloud.putRequests()[0]?.answer?.status).toBe(200);
    } finally {
      await cloud.stop();
    }
    const bad = await runAgent(['run'], env({ DEVICE_AGENT_API_KEY: 'test-api-key\u001bconfig-fault' }), 20_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/apiKey \(DEVICE_AGENT_API_KEY\): holds the control character U\+001B at position 13; remove it/);
    expect(bad.stderr).not.toContain('config-fault');
  });
});
