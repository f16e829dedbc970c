import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { AgentProcess, baseEnv, runAgent, type AgentRun } from './agent-process.js';
import { checkOf } from './doctor-checks.js';

// The command line end to end, through the compiled CLI in its own process:
// help, the one-line answer to a mistake, the exit-code table the four
// commands follow, and the messages that fit each command. A real adb
// server with no devices and the cloud double stand in for the lab.

const adb = new AdbServer();
const cloud = new CloudDouble();
const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');
let baseUrl = '';

beforeAll(async () => {
  await adb.start();
  baseUrl = await cloud.start();
});

afterAll(async () => {
  await adb.stop();
  await cloud.stop();
});

/** A lab host with no phones, the cloud double's account, and no usbmuxd; an undefined in `extra` unsets. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const out = baseEnv({
    ...adb.env,
    USBMUXD_SOCKET_ADDRESS: 'UNIX:/nonexistent/usbmuxd',
    DEVICE_AGENT_BASE_URL: baseUrl,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '2',
    ...extra,
  });
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete out[name];
  return out;
}

const lines = (text: string) => text.split('\n').filter(Boolean);
const logs = (run: AgentRun) => lines(run.stderr).map((l) => JSON.parse(l) as { level: string; msg: string });

describe('help', () => {
  it("once --help, help once: the command's flags, variables with defaults and exit codes, on stdout", async () => {
    const [flag, topic] = await Promise.all([runAgent(['once', '--help'], env()), runAgent(['help', 'once'], env())]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(topic.stdout);
    expect(flag.stderr).toBe('');
    expect(flag.stdout).toMatch(/^device-agent once: /);
    expect(flag.stdout).toMatch(/^ {2}--dry-run /m);
    expect(flag.stdout).toMatch(/^ {2}DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS +30$/m);
    expect(flag.stdout).toMatch(/^ {2}3 +the cloud refused some devices/m);
  });

  it('each command has its own help; help and --help give the overview with every command', async () => {
    const runs = await Promise.all(['run', 'list', 'doctor'].map((c) => runAgent([c, '--help'], env())));
    for (const [i, name] of ['run', 'list', 'doctor'].entries()) {
      expect(runs[i]!.code).toBe(0);
      expect(runs[i]!.stdout.split('\n')[0]).toMatch(new RegExp(`^device-agent ${name}: `));
    }
    expect(runs[1]!.stdout).toMatch(/^ {2}--json /m);
    expect(runs[0]!.stdout).not.toMatch(/--json|--dry-run/);
    const overview = await runAgent(['help'], env());
    expect(overview.code).toBe(0);
    for (const name of ['run', 'once', 'list', 'doctor', 'help']) expect(overview.stdout).toMatch(new RegExp(`^ {2}${name} `, 'm'));
    expect((await runAgent(['--help'], env())).stdout).toBe(overview.stdout);
  });
});

describe('a mistake on the command line', () => {
  it('is answered in one line with a suggestion, exit 2, nothing on stdout', async () => {
    const run = await runAgent(['once', '--dryrun'], env());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('device-agent: unknown flag --dryrun; did you mean --dry-run? (device-agent once --help)\n');
    const command = await runAgent(['lsit'], env());
    expect(command.code).toBe(2);
    expect(command.stderr).toBe('device-agent: unknown command "lsit"; did you mean list? (device-agent --help)\n');
    const level = await runAgent(['list', '--log-level', 'verbose'], env());
    expect(level.code).toBe(2);
    expect(lines(level.stderr)).toEqual([
      'device-agent: --log-level verbose: must be one of trace, debug, info, warn, error, fatal, silent (device-agent list --help)',
    ]);
  });
});

describe('settings', () => {
  it('misspelt variables are named with the one meant, and every missing setting in the same run (exit 2)', async () => {
    const run = await runAgent(
      ['once'],
      env({
        DEVICE_AGENT_BASE_URL: undefined,
        DEVICE_AGENT_USERNAME: undefined,
        DEVICE_AGENT_API_KEY: undefined,
        DEVICE_AGENT_BASEURL: baseUrl,
        DEVICE_AGENT_USER: 'u',
        DEVICE_AGENT_APIKEY: 'k',
      }),
    );
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      'device-agent: warning: DEVICE_AGENT_APIKEY is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_API_KEY?',
      'device-agent: warning: DEVICE_AGENT_BASEURL is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_BASE_URL?',
      'device-agent: warning: DEVICE_AGENT_USER is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_USERNAME?',
      'device-agent: configuration error: baseUrl (DEVICE_AGENT_BASE_URL): is required to send reports: the cloud v1 root, e.g. https://cloud.example.com/v1',
      'device-agent: configuration error: username (DEVICE_AGENT_USERNAME): is required to report to the cloud: the username or email of the account',
      'device-agent: configuration error: apiKey (DEVICE_AGENT_API_KEY): no API key: set DEVICE_AGENT_API_KEY, DEVICE_AGENT_API_KEY_FILE, or a systemd credential named api-key',
    ]);
  });

  it('every bad value is named in one run, and run refuses to start (exit 2)', async () => {
    const run = await runAgent(
      ['run'],
      env({ DEVICE_AGENT_JITTER_SECONDS: 'ten', DEVICE_AGENT_SHUTDOWN_TIMEOUT_SECONDS: '20', ADB_SERVER_SOCKET: 'localhost:5037' }),
    );
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      'device-agent: configuration error: DEVICE_AGENT_JITTER_SECONDS: must be a whole number, got "ten"',
      'device-agent: configuration error: shutdownTimeoutSeconds (DEVICE_AGENT_SHUTDOWN_TIMEOUT_SECONDS): must be at most 9, got 20',
      'device-agent: configuration error: ADB_SERVER_SOCKET: must be tcp:HOST:PORT with a port from 1 to 65535, e.g. tcp:127.0.0.1:5037; got "localhost:5037"',
    ]);
  });

  it('a misspelt variable that stops nothing is a warning with the one meant, and the run goes on', async () => {
    const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_LOGLEVEL: 'debug' }));
    expect(run.code, run.stderr).toBe(0);
    expect(
      logs(run)
        .filter((l) => l.level === 'warn')
        .map((l) => l.msg),
    ).toEqual(['DEVICE_AGENT_LOGLEVEL is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_LOG_LEVEL?']);
  });

  it('the old ..._MI_B name still works, with a warning to rename it', async () => {
    const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B: '2048' }));
    expect(run.code, run.stderr).toBe(0);
    expect(logs(run).map((l) => l.msg)).toContain(
      'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B is the old name of DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB: it still works for now, but rename it',
    );
  });
});

describe('exit codes', () => {
  it('list: 0 for an empty lab, 1 with one clear line when there is no adb server, and no "no devices" then', async () => {
    const empty = await runAgent(['list'], env());
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('no devices\n');
    const port = await freePort();
    const [broken, json] = await Promise.all([
      runAgent(['list'], env({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` })),
      runAgent(['list', '--json'], env({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` })),
    ]);
    for (const run of [broken, json]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      const [settings, line, ...rest] = logs(run);
      expect(settings!.msg).toMatch(/^settings: .*; state directory /);
      expect(rest).toEqual([]);
      expect(line).toMatchObject({
        level: 'error',
        msg: expect.stringMatching(new RegExp(`^no adb server at tcp:127\\.0\\.0\\.1:${port} .*adb start-server`)),
      });
    }
  });

  it('once: 1 when the cloud is down, saying the report was not delivered, with no promise of a next report', async () => {
    const port = await freePort();
    const run = await runAgent(['once'], env({ DEVICE_AGENT_BASE_URL: `http://127.0.0.1:${port}/v1` }));
    expect(run.code, run.stderr).toBe(1);
    const errors = logs(run).filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toMatch(/^report not delivered: PUT \/devices: the cloud is unavailable/);
    expect(run.stderr).not.toMatch(/resen[dt]|next report/);
  });

  it('once: 1 on a 404, with the /v1 hint', async () => {
    cloud.clearRequests();
    const run = await runAgent(['once'], env({ DEVICE_AGENT_BASE_URL: baseUrl.replace(/\/v1$/, '') }));
    expect(run.code, run.stderr).toBe(1);
    const [error] = logs(run).filter((l) => l.level === 'error');
    expect(error!.msg).toMatch(/^report not delivered: PUT \/devices: the cloud rejected the request with 404.*DEVICE_AGENT_BASE_URL is not the v1 root/);
  });

  it('doctor: 2 when a setting is bad, with a checklist naming each problem and the unknown variables as warnings', async () => {
    const run = await runAgent(['doctor'], env({ DEVICE_AGENT_PROBE_CONCURRENCY: '0', DEVICE_AGENT_STATUS_LISTEN: 'nowhere', DEVICE_AGENT_BASEURL: 'x' }));
    expect(run.code, run.stdout).toBe(2);
    // The settings reference as a path that exists where it runs (a checkout's here).
    const reference = fileURLToPath(new URL('../../docs/reference/configuration.md', import.meta.url));
    expect(existsSync(reference)).toBe(true);
    expect(lines(run.stdout)).toEqual([
      '[FAIL] configuration: probeConcurrency (DEVICE_AGENT_PROBE_CONCURRENCY): must be at least 1, got 0; statusListen (DEVICE_AGENT_STATUS_LISTEN): must be HOST:PORT or off, got "nowhere"',
      `       -> fix the settings; every setting, its variable and range are listed in ${reference}`,
      '[WARN] DEVICE_AGENT_BASEURL is set but device-agent has no such variable, so it is ignored; did you mean DEVICE_AGENT_BASE_URL?',
      `       -> fix or remove DEVICE_AGENT_BASEURL; every variable is listed in ${reference}`,
      '1 failed, 1 warning of 2 checks.',
    ]);
  });

  it('doctor: 2 for a CA file it cannot read, as once would stop on it', async () => {
    const [doctor, once] = await Promise.all([
      runAgent(['doctor'], env({ DEVICE_AGENT_CA_FILE: '/nonexistent/ca.pem' })),
      runAgent(['once'], env({ DEVICE_AGENT_CA_FILE: '/nonexistent/ca.pem' })),
    ]);
    expect(doctor.code, doctor.stdout).toBe(2);
    expect(doctor.stdout).toMatch(/^\[FAIL\] TLS trust: .*\/nonexistent\/ca\.pem/m);
    expect(once.code, once.stderr).toBe(2);
  });

  it('doctor: an unknown variable is a warning of its own, never under OK, and alone it fails nothing', async () => {
    const [run, json] = await Promise.all([
      runAgent(['doctor'], env({ DEVICE_AGENT_LOGLEVEL: 'debug' })),
      runAgent(['doctor', '--json'], env({ DEVICE_AGENT_LOGLEVEL: 'debug' })),
    ]);
    expect(run.code, run.stdout).toBe(0);
    expect(checkOf(json.stdout, 'config')).toMatchObject({ status: 'ok', finding: expect.stringMatching(/^configuration valid/) });
    expect(checkOf(json.stdout, 'config').finding).not.toContain('LOGLEVEL');
    expect(checkOf(json.stdout, 'config.variables').status).toBe('warn');
    expect(run.stdout).toMatch(/^\[WARN\] DEVICE_AGENT_LOGLEVEL is set but .*did you mean DEVICE_AGENT_LOG_LEVEL\?$/m);
  });
});

describe('doctor on a terminal', () => {
  /** The doctor under script(1), which gives it a pseudo-terminal as an operator's shell does. */
  const viaTty = (extra: Record<string, string | undefined>) =>
    new Promise<string>((done) => {
      const child = spawn('script', ['-qec', `${process.execPath} ${bin} doctor`, '/dev/null'], { env: env(extra) });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('close', () => done(out));
    });

  it('paints [ OK ] green, [WARN] yellow and [FAIL] red, and nothing with NO_COLOR or TERM=dumb', async () => {
    const missing = { DEVICE_AGENT_USERNAME: undefined, TERM: 'xterm' };
    const [tty, noColor, dumb] = await Promise.all([viaTty(missing), viaTty({ ...missing, NO_COLOR: '1' }), viaTty({ ...missing, TERM: 'dumb' })]);
    expect(tty).toMatch(/\u001b\[32m\[ OK \]\u001b\[39m node id, /);
    expect(tty).toContain('\u001b[33m[WARN]\u001b[39m devices: adb lists none');
    expect(tty).toContain('\u001b[31m[FAIL]\u001b[39m cloud settings: username');
    for (const plain of [noColor, dumb]) {
      expect(plain).toContain('[FAIL] cloud settings: username');
      expect(plain).not.toContain('\u001b[3');
    }
  });
});

// The service's state directory is /var/lib/device-agent: each run below sees
// one of its own, on a tmpfs in a mount namespace of its own (root only, as
// the state-directory fault tests), so the host's /var/lib is never touched.
describe('a one-shot command beside an installed service', () => {
  const withService = (args: string[], extra: Record<string, string | undefined>) => {
    const script = `mount -t tmpfs tmpfs /var/lib && mkdir /var/lib/device-agent && exec ${process.execPath} ${bin} ${args.join(' ')}`;
    const child = spawn('unshare', ['-m', 'sh', '-c', script], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    return new AgentProcess(child).exited();
  };

  it("warns when its state directory is not the service's, for once and list, and the doctor says so", async () => {
    const [once, list, doctor] = await Promise.all([withService(['once', '--dry-run'], {}), withService(['list'], {}), withService(['doctor'], {})]);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/^\[WARN\] state directory \/tmp\/\S+ is not the one of the device-agent service on this host \(\/var\/lib\/device-agent\)/m);
    for (const run of [once, list]) {
      expect(run.code, run.stderr).toBe(0);
      const warnings = logs(run).filter((l) => l.level === 'warn' && l.msg.includes('/var/lib/device-agent'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(
        /^this run keeps its node id in \/tmp\/.*, the device-agent service on this host in \/var\/lib\/device-agent: .*second node; run it as the service runs/,
      );
    }
  });

  it("says nothing when it runs with the service's directory, or with a node id of its own", async () => {
    const [same, configured] = await Promise.all([
      withService(['once', '--dry-run'], { DEVICE_AGENT_STATE_DIR: undefined, STATE_DIRECTORY: '/var/lib/device-agent' }),
      withService(['once', '--dry-run'], { DEVICE_AGENT_NODE_ID: 'lab-7' }),
    ]);
    for (const run of [same, configured]) {
      expect(run.code, run.stderr).toBe(0);
      expect(logs(run).filter((l) => l.level !== 'info' && l.msg.includes('/var/lib/device-agent'))).toEqual([]);
    }
  });
});
