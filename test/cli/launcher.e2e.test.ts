import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parentOf } from '../../src/cli/npm-parent.js';
import { agentVersion } from '../../src/util/package.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { freePort } from '../sim/adb-server.js';
import { AgentProcess, baseEnv } from '../e2e/agent-process.js';

// bin/device-agent.js as people start it: with whatever Node.js is on the
// system, and through npx inside the checkout.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/device-agent.js');

/** A Node.js older than 24 on this machine (Debian's nodejs, which npm needs), if any. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/bin/nodejs', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(/^v(\d+)/.exec(version)?.[1]) < 24) return candidate;
  }
  return undefined;
}

describe('the runtime check', () => {
  const node = oldNode();
  it.skipIf(!node)(`an older Node.js (${node ?? 'none on this machine'}) is told what is wrong and exits 2`, () => {
    let status = 0;
    let stderr = '';
    try {
      // With the shebang's flags, as `./bin/device-agent.js` starts it: a flag that Node.js does not know is refused
      // before the check can speak (Debian 12's Node.js 18 refuses --no-turbofan).
      const flags = /^#!\/usr\/bin\/env -S node(.*)$/m.exec(readFileSync(bin, 'utf8'))![1]!.split(' ').filter(Boolean);
      execFileSync(node!, [...flags, bin, 'once', '--dry-run'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: baseEnv() });
    } catch (error) {
      ({ status, stderr } = error as { status: number; stderr: string });
    }
    expect(status).toBe(2);
    expect(stderr).toMatch(/^device-agent: needs Node\.js 24 or later, but .* is Node\.js v\d+\./);
    expect(stderr).toContain('/usr/bin/device-agent');
    // What Node 20 printed before the check: V8's complaint, then it went on.
    expect(stderr).not.toContain('unrecognized flag');
  });
});

/**
 * Runs `node bin/device-agent.js ARGS` with a module hook that records
 * every module loaded and, once the launcher has set its V8 flags (when the
 * CLI's main module loads), asks V8 whether a function can still be handed
 * to Turbofan or Maglev (natives syntax, allowed for this run only).
 */
function launcherInside(args: string[]): { turbofan?: boolean; maglev?: boolean; loaded: string[]; stdout: string } {
  const hook = join(mkdtempSync(join(tmpdir(), 'da-launcher-')), 'hook.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
const loaded = [];
const tiers = {};
const tier = (how) => new Function('f', '%PrepareFunctionForOptimization(f); f(1); f(2); %' + how + '(f); f(3); return %GetOptimizationStatus(f);')(new Function('x', 'return x + 1'));
registerHooks({ load(url, context, next) {
  loaded.push(url);
  if (url.endsWith('/dist/src/cli/main.js')) {
    // Bit 16: optimized.
    tiers.turbofan = (tier('OptimizeFunctionOnNextCall') & 16) !== 0;
    tiers.maglev = (tier('OptimizeMaglevOnNextCall') & 16) !== 0;
  }
  return next(url, context);
} });
process.on('exit', () => process.stderr.write('LAUNCHER ' + JSON.stringify({ ...tiers, loaded }) + '\\n'));
`,
  );
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', hook, bin, ...args], { encoding: 'utf8', env: baseEnv() });
  expect(run.stdout).toMatch(/^device-agent /);
  const line = /^LAUNCHER (.*)$/m.exec(run.stderr)?.[1];
  if (line === undefined) throw new Error(`the hook said nothing: ${run.stderr}`);
  return { ...(JSON.parse(line) as { turbofan?: boolean; maglev?: boolean; loaded: string[] }), stdout: run.stdout };
}

describe('what the launcher loads, and how V8 runs it (docs/performance/)', () => {
  // help loads the CLI whole, as every command but the version alone does.
  const inside = launcherInside(['help']);

  it('turns off the optimizing compilers before the CLI loads, whatever starts it (the unit, the image, a shell)', () => {
    expect({ turbofan: inside.turbofan, maglev: inside.maglev }).toEqual({ turbofan: false, maglev: false });
  });

  it('loads no package the daemon does not use: the YAML parser and bcrypt wait for a web config file, node-forge for an adb key', () => {
    const packages = (name: string) =>
      inside.loaded.filter((url) => url.includes(`/node_modules/${name}/`)).map((url) => url.slice(url.lastIndexOf(`/${name}/`) + 1));
    // The hook sees every module the CLI loads (adbkit's own requires included), so an empty list is not a blind spot.
    expect(packages('@devicefarmer/adbkit').length).toBeGreaterThan(10);
    expect(packages('yaml')).toEqual([]);
    expect(packages('bcryptjs')).toEqual([]);
    expect(packages('node-forge').sort()).toEqual(['node-forge/lib/forge.js', 'node-forge/lib/jsbn.js']);
  });
});

describe('the version (issue 70)', () => {
  const dist = (url: string) => (url.includes('/dist/src/') ? [url.slice(url.indexOf('/dist/src/') + 1)] : []);

  it('alone, however spelt, loads only what it prints; any other way of asking says the same through the CLI', () => {
    const fast = ['--version', '-v', 'version'].map((a) => launcherInside([a]));
    for (const run of fast)
      expect(run.loaded.flatMap(dist).sort()).toEqual(['dist/src/cli/output-errors.js', 'dist/src/cli/version.js', 'dist/src/util/package.js']);
    const cli = launcherInside(['once', '--version']);
    expect(cli.loaded.flatMap(dist)).toContain('dist/src/cli/main.js');
    for (const run of [...fast, cli]) expect(run.stdout).toBe(`device-agent ${agentVersion}\nNode.js ${process.version} (${process.execPath})\n`);
  });
});

describe('parentOf', () => {
  it('reads the parent pid from /proc, and nothing for a process that is gone', () => {
    expect(parentOf(process.pid)).toBe(process.ppid);
    expect(parentOf(2 ** 22 + 1)).toBeUndefined();
  });
});

describe('npx device-agent run', () => {
  const cloud = new CloudDouble();
  let agentPid: number | undefined;
  beforeAll(async () => {
    await cloud.start();
  });
  afterAll(async () => {
    // A failed run must not leave the orphan it was about.
    if (agentPid !== undefined && alive(agentPid)) process.kill(agentPid, 'SIGKILL');
    await cloud.stop();
  });

  it('stops when npm is sent SIGTERM instead of living on unsupervised, and says how to run it', async () => {
    const statusPort = await freePort();
    const env = baseEnv({
      PATH: process.env.PATH,
      DEVICE_AGENT_BASE_URL: cloud.url,
      DEVICE_AGENT_USERNAME: cloud.username,
      DEVICE_AGENT_API_KEY: cloud.apiKey,
      DEVICE_AGENT_SCHEDULE: '0 0 1 1 *',
      DEVICE_AGENT_STATUS_LISTEN: `127.0.0.1:${statusPort}`,
      ANDROID_ADB_SERVER_PORT: String(await freePort()),
      // npx links the checkout into a cache under this fresh HOME: its
      // prepare script builds nothing then (test/packaging/prepare.e2e.test.ts).
      npm_config_update_notifier: 'false',
    });
    // npx, not npm exec --offline: exactly what the issue ran. Inside the
    // checkout it resolves the project itself, nothing from the registry.
    const npx = new AgentProcess(spawn('npx', ['device-agent', 'run'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const started = await npx.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 45_000);
    agentPid = started.pid as number;
    expect(agentPid).not.toBe(npx.child.pid);
    expect(npx.stderr).toContain('device-agent: started through npm (exec)');

    npx.child.kill('SIGTERM');
    await npx.exited(15_000);
    const deadline = Date.now() + 20_000;
    while (alive(agentPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(alive(agentPid), `agent ${agentPid} still runs after npm got SIGTERM`).toBe(false);
    // Stopped as on SIGTERM: after its start, or during it (a loaded host can still be starting
    // when npm goes: "stopped while starting", which CI's clean-clone run met once).
    expect(npx.logs().some((l) => l.msg === 'device-agent stopped' || l.msg === 'stopped while starting; nothing had been reported yet')).toBe(true);
  }, 90_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
