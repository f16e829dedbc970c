import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedNodeFlags } from '../bench/shipped.js';

// /usr/bin/device-agent of the package (packaging/deb/device-agent.sh), run
// by bash with its library directory moved to a temporary one. The
// packaged command as root (systemd-run) is run by test/deploy/rollout.sh.

const script = readFileSync(new URL('../../packaging/deb/device-agent.sh', import.meta.url), 'utf8');
// Given before the launcher runs: the launcher's own setting comes after Node's start-up has compiled with Maglev.
const V8_FLAGS = ['--no-turbofan', '--no-maglev'];
const SHIPPED_FLAGS = ['--max-semi-space-size=1', ...V8_FLAGS];

/** The wrapper with its library, /etc/device-agent and /var/lib/device-agent moved under the returned directory's lib, etc and state. */
function install(runtime: 'missing' | 'foreign' | 'node', dir = mkdtempSync(join(tmpdir(), 'da-launcher-'))): string {
  const lib = join(dir, 'lib');
  mkdirSync(join(lib, 'node/bin'), { recursive: true });
  mkdirSync(join(lib, 'bin'), { recursive: true });
  if (runtime === 'node') symlinkSync(process.execPath, join(lib, 'node/bin/node'));
  if (runtime === 'foreign') {
    // The start of an AArch64 ELF executable: what an arm64 package's
    // runtime looks like to an amd64 kernel.
    const elf = Buffer.alloc(64);
    elf.write('\x7fELF', 0, 'latin1');
    elf.writeUInt8(2, 4); // 64-bit
    elf.writeUInt8(1, 5); // little endian
    elf.writeUInt8(1, 6);
    elf.writeUInt16LE(2, 16); // executable
    elf.writeUInt16LE(183, 18); // EM_AARCH64
    writeFileSync(join(lib, 'node/bin/node'), elf);
    chmodSync(join(lib, 'node/bin/node'), 0o755);
  }
  writeFileSync(
    join(lib, 'bin/device-agent.js'),
    // DEVICE_AGENT_AS_ROOT is the wrapper's alone: passed on, the agent would warn that it has no such variable.
    'const { STATE_DIRECTORY: stateDirectory, ADB_SERVER_SOCKET: adb, DEVICE_AGENT_LOG_LEVEL: logLevel, DEVICE_AGENT_AS_ROOT: asRoot } = process.env;\n' +
      'console.log(JSON.stringify({ argv: process.argv.slice(2), execArgv: process.execArgv, stateDirectory, adb, logLevel, asRoot }));\n',
  );
  const bin = join(dir, 'device-agent');
  writeFileSync(
    bin,
    script
      .replace('lib=/usr/lib/device-agent', `lib=${lib}`)
      .replace('etc=/etc/device-agent', `etc=${dir}/etc`)
      .replace('state=/var/lib/device-agent', `state=${dir}/state`)
      .replace('arch=@ARCH@', 'arch=arm64'),
  );
  chmodSync(bin, 0o755);
  return bin;
}

/** An installed agent as build.sh lays it out (its package.json, dist/src, the launcher without its shebang), its runtime `node/bin/node`. */
function installAgent(runtime: (path: string) => void): { bin: string; lib: string } {
  const bin = install('missing');
  const lib = join(bin, '../lib');
  const repo = new URL('../../', import.meta.url).pathname;
  copyFileSync(join(repo, 'package.json'), join(lib, 'package.json'));
  cpSync(join(repo, 'dist/src'), join(lib, 'dist/src'), { recursive: true });
  writeFileSync(join(lib, 'bin/device-agent.js'), readFileSync(join(repo, 'bin/device-agent.js'), 'utf8').replace(/^#!.*\n/, ''));
  runtime(join(lib, 'node/bin/node'));
  return { bin, lib };
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number; stdout: string; stderr: string } {
  try {
    const options = { encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } };
    return { status: 0, stdout: execFileSync('/bin/bash', [bin, ...args], options), stderr: '' };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('/usr/bin/device-agent', () => {
  it('runs the agent on the packaged runtime, with its memory flag and every argument', () => {
    const { status, stdout } = run(install('node'), ['once', '--dry-run', '--log-level', 'debug']);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ argv: ['once', '--dry-run', '--log-level', 'debug'], execArgv: SHIPPED_FLAGS });
  });

  it('the unit, the wrapper and the image give node the same V8 flags before the launcher', () => {
    expect(shippedNodeFlags(join(import.meta.dirname, '../..'))).toEqual(V8_FLAGS);
    const entrypoint = readFileSync(new URL('../../container/entrypoint.sh', import.meta.url), 'utf8');
    expect(/^exec node (.*) \/app\/bin\/device-agent\.js "\$@"$/m.exec(entrypoint)?.[1]?.split(' ')).toEqual(V8_FLAGS);
  });

  it('--version names the version and the bundled Node.js it runs on (issue 70)', () => {
    const { bin, lib } = installAgent((node) => symlinkSync(process.execPath, node));
    const version = (JSON.parse(readFileSync(join(lib, 'package.json'), 'utf8')) as { version: string }).version;
    for (const args of [['--version'], ['version']]) {
      const { status, stdout } = run(bin, args);
      expect(status).toBe(0);
      expect(stdout).toBe(`device-agent ${version}\nNode.js ${process.version}, the one the package bundles (${lib}/node/bin/node)\n`);
    }
  });

  it('--version on another Node.js than the bundled one says so', () => {
    const { lib } = installAgent((node) => copyFileSync('/bin/true', node));
    const stdout = execFileSync(process.execPath, [join(lib, 'bin/device-agent.js'), '--version'], { encoding: 'utf8' });
    expect(stdout.split('\n')[1]).toBe(`Node.js ${process.version} (${process.execPath}), not the one the package bundles (${lib}/node/bin/node)`);
  });

  // Issue 70, 1: by hand (not as root under systemd, where the commands run as the service does) `incidents` and
  // `quarantine` read ~/.local/state and no settings file: each command reading state or settings reads the service's.
  describe("by hand, not as the service: the service's state directory, settings file and environment file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'da-launcher-'));
    const bin = install('node', dir);
    mkdirSync(join(dir, 'state'));
    mkdirSync(join(dir, 'etc'));
    writeFileSync(join(dir, 'etc/config.json'), '{}\n');
    // agent.env as an operator edits it: comments, a value in quotes, no newline at the end.
    writeFileSync(
      join(dir, 'etc/agent.env'),
      '# the adb server\nADB_SERVER_SOCKET=tcp:127.0.0.1:5038\n#DEVICE_AGENT_SCHEDULE=x\nDEVICE_AGENT_LOG_LEVEL="warn"',
    );
    // As root without systemd, or DEVICE_AGENT_AS_ROOT=1, or an operator: the same branch.
    const byHand = (args: string[], env: NodeJS.ProcessEnv = {}) => JSON.parse(run(bin, args, { DEVICE_AGENT_AS_ROOT: '1', ...env }).stdout) as object;

    it.each([['incidents'], ['quarantine', 'release', 'S1'], ['once'], ['list'], ['doctor']])('%s', (...args) => {
      expect(byHand(args)).toEqual({
        argv: [...args, '--config', join(dir, 'etc/config.json')],
        execArgv: SHIPPED_FLAGS,
        stateDirectory: join(dir, 'state'),
        adb: 'tcp:127.0.0.1:5038',
        logLevel: 'warn',
      });
    });

    it("a state directory or settings file named on the command line wins, the environment file over the caller's; run gets them from systemd", () => {
      expect(byHand(['incidents', '--config', '/x.json'], { STATE_DIRECTORY: '/srv/s', DEVICE_AGENT_LOG_LEVEL: 'debug' })).toMatchObject({
        argv: ['incidents', '--config', '/x.json'],
        stateDirectory: '/srv/s',
        logLevel: 'warn',
      });
      expect(byHand(['run'])).toEqual(expect.objectContaining({ argv: ['run', '--config', join(dir, 'etc/config.json')] }));
      expect(byHand(['run'])).not.toHaveProperty('stateDirectory');
      expect(byHand(['run'])).not.toHaveProperty('adb');
      expect(byHand(['help'])).toEqual(expect.objectContaining({ argv: ['help'] }));
      expect(byHand(['help'])).not.toHaveProperty('stateDirectory');
    });

    it('on a host without the state directory, nothing is made up', () => {
      const bare = install('node');
      expect(JSON.parse(run(bare, ['incidents'], { DEVICE_AGENT_AS_ROOT: '1' }).stdout)).toEqual({
        argv: ['incidents'],
        execArgv: SHIPPED_FLAGS,
      });
    });
  });

  it('says the runtime is missing and how to get it back, exit 2', () => {
    const { status, stderr } = run(install('missing'), ['--version']);
    expect(status).toBe(2);
    expect(stderr).toMatch(
      /^device-agent: its Node\.js runtime .*\/node\/bin\/node is missing; reinstall the package: apt-get install --reinstall device-agent\n$/,
    );
  });

  it('says a runtime of another architecture does not run here and which package to install, exit 2', () => {
    const { status, stderr } = run(install('foreign'), ['--version']);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^device-agent: its Node\.js runtime .* does not run on this host \(/);
    expect(stderr).toMatch(/This is the arm64 package; install the one built for \S+\.\n$/);
  });
});
