import { spawn, execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../sim/adb-server.js';
import { systemTool } from '../support/system-tool.js';

// The container's entrypoint (container/entrypoint.sh, copied by the
// Dockerfile) run with /bin/sh (dash, as in the Debian image), a stand-in
// `node` on PATH and the real adb on a free port, never 5037. The image
// itself is built and run by test/deploy/container.sh.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function healthcheckOf(dockerfile: string): string[] | undefined {
  const json = /^HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  return json === undefined ? undefined : (JSON.parse(json) as string[]);
}

/** Asks an adb server for its version over the smart-socket protocol; undefined when none answers. */
function adbVersion(port: number): Promise<string | undefined> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('connect', () => socket.write('000chost:version'));
    socket.on('data', (chunk) => (reply += chunk.toString('latin1')));
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(reply.startsWith('OKAY') ? reply.slice(4) : undefined));
    socket.setTimeout(2_000, () => socket.destroy());
  });
}

/** Asks until `probe` answers, for at most 15 s: a step that never comes fails its own expect, not the test's timeout (CI at 1d2f2dfc: 60 s, no step named). */
async function until<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('container entrypoint', () => {
  let dir = '';
  let script = '';
  const groups: number[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'device-agent-entrypoint-'));
    const body = await readFile(join(root, 'container/entrypoint.sh'), 'utf8');
    script = join(dir, 'device-agent-entrypoint');
    await writeFile(script, body + '\n');
    await chmod(script, 0o755);
    // Stand-in for Node: reports how it was started, one line per stream,
    // and stays up like the daemon when asked to.
    await writeFile(join(dir, 'node'), '#!/bin/sh\necho "node-args: $*"\necho "node-stderr" >&2\nif [ "${FAKE_NODE_STAY:-0}" = 1 ]; then exec sleep 120; fi\n');
    await chmod(join(dir, 'node'), 0o755);
  });

  afterAll(async () => {
    for (const pgid of groups) {
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  });

  function run(args: string[], env: Record<string, string> = {}): Promise<Finished> {
    return new Promise((done) => {
      execFile('/bin/sh', [script, ...args], { env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir, ...env } }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  }

  it('is the file the Dockerfile installs, with no heredoc (podman/buildah before 1.33 cannot read one)', async () => {
    const dockerfile = await readFile(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^COPY container\/entrypoint\.sh \/usr\/local\/bin\/device-agent-entrypoint$/m);
    const instructions = dockerfile.split('\n').filter((l) => !l.startsWith('#'));
    expect(instructions.join('\n')).not.toMatch(/<</);
    expect(instructions.join('\n')).not.toMatch(/COPY --chmod/);
  });

  it('runs the agent with run by default and sends its logs to stdout', async () => {
    const result = await run([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('node-args: --no-turbofan --no-maglev /app/bin/device-agent.js run\n');
    expect(result.stdout).toContain('node-stderr');
    expect(result.stderr).toBe('');
    const explicit = await run(['run']);
    expect(explicit.stdout).toContain('node-args: --no-turbofan --no-maglev /app/bin/device-agent.js run\n');
    expect(explicit.stdout).toContain('node-stderr');
  });

  it('keeps stdout clean for once --dry-run', async () => {
    const result = await run(['once', '--dry-run']);
    expect(result.stdout).toBe('node-args: --no-turbofan --no-maglev /app/bin/device-agent.js once --dry-run\n');
    expect(result.stderr).toBe('node-stderr\n');
  });

  it('starts no adb server unless asked', async () => {
    const port = await freePort();
    await run(['run'], { ANDROID_ADB_SERVER_PORT: String(port) });
    expect(await adbVersion(port)).toBeUndefined();
  });

  it('with DEVICE_AGENT_START_ADB=1 starts an adb server and brings it back after kill-server', async () => {
    const adb = systemTool('adb');
    const port = await freePort();
    const child = spawn('/bin/sh', [script, 'run'], {
      env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir, DEVICE_AGENT_START_ADB: '1', ANDROID_ADB_SERVER_PORT: String(port), FAKE_NODE_STAY: '1' },
      detached: true,
      stdio: 'ignore',
    });
    if (child.pid === undefined) throw new Error('entrypoint did not start');
    groups.push(child.pid);

    const version = await until(() => adbVersion(port));
    expect(version ?? 'none', `no adb server answered on port ${port}`).toMatch(/^[0-9a-f]{8}$/);

    const killed = await new Promise<string>((done) =>
      execFile(adb, ['-P', String(port), 'kill-server'], { env: { ...process.env, HOME: dir }, timeout: 10_000 }, (error) =>
        done(error ? String(error) : 'ok'),
      ),
    );
    expect(await until(async () => ((await adbVersion(port)) === undefined ? true : undefined)), `the server still answers after kill-server (${killed})`).toBe(
      true,
    );
    expect(await until(() => adbVersion(port)), 'the entrypoint did not start the server again').toBe(version);
  });

  it("wraps adb's own log lines as JSON lines", async () => {
    const adb = systemTool('adb');
    const port = await freePort();
    const child = spawn('/bin/sh', [script, 'run'], {
      env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir, DEVICE_AGENT_START_ADB: '1', ANDROID_ADB_SERVER_PORT: String(port), FAKE_NODE_STAY: '1' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error('entrypoint did not start');
    groups.push(child.pid);
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    expect(await until(() => adbVersion(port))).toMatch(/^[0-9a-f]{8}$/);
    // Something adb logs: a host asking for a device that is not there.
    await new Promise<void>((done) =>
      execFile(adb, ['-P', String(port), '-s', 'nosuch', 'shell', 'true'], { env: { ...process.env, HOME: dir } }, () => done()),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const lines = out.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('node-'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((l) => JSON.parse(l) as { component: string }).every((l) => l.component === 'adb')).toBe(true);
  });
});

describe('container healthcheck', () => {
  let command: string[] = [];

  beforeAll(async () => {
    command = healthcheckOf(await readFile(join(root, 'Dockerfile'), 'utf8')) ?? [];
  });

  function check(listen: string): Promise<number> {
    return new Promise((done) => {
      // The image's node is the first word; this test runs the same Node.
      execFile(process.execPath, command.slice(1), { env: { DEVICE_AGENT_STATUS_LISTEN: listen } }, (error) => done(error ? Number(error.code) : 0));
    });
  }

  async function withStatus(status: number, body: (port: number) => Promise<void>): Promise<void> {
    const paths: string[] = [];
    const server = createHttpServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(req.url === '/healthz' ? status : 404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    try {
      await body(typeof address === 'object' && address ? address.port : 0);
    } finally {
      await new Promise((done) => server.close(done));
    }
    expect(paths).toEqual(['/healthz']);
  }

  it('is a node command in the Dockerfile', () => {
    expect(command[0]).toBe('node');
    expect(healthcheckOf('FROM x\n')).toBeUndefined();
  });

  it('is healthy when /healthz answers 200 on the configured port', async () => {
    await withStatus(200, async (port) => expect(await check(`0.0.0.0:${port}`)).toBe(0));
  });

  it('is unhealthy when /healthz answers 503 or nothing listens', async () => {
    await withStatus(503, async (port) => expect(await check(`127.0.0.1:${port}`)).toBe(1));
    expect(await check(`127.0.0.1:${await freePort()}`)).toBe(1);
  });

  it('is healthy when the status listener is off', async () => {
    expect(await check('off')).toBe(0);
  });
});
