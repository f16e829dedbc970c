// The shell a simulated device runs, exercised without adb in between.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICES_DIR, loadProfile, makeProfile, parseGetprop, withProps, withSerial, type Profile } from './profile.js';
import { spawnShell } from './shell.js';
import { parseUptimeRecording, writeStubs } from './stubs.js';

interface Device {
  run(command: string): Promise<string>;
}

const dirs: string[] = [];

async function prepare(profile: Profile): Promise<Device> {
  const dir = await mkdtemp(join(tmpdir(), 'stubs-test-'));
  dirs.push(dir);
  const stubs = await writeStubs(profile, dir);
  return {
    run: (command) =>
      new Promise((resolve, reject) => {
        const child = spawnShell(command, stubs, dir);
        const chunks: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
        child.on('error', reject);
        child.on('close', () => resolve(Buffer.concat(chunks).toString()));
        child.stdin.end();
      }),
  };
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a simulated device shell on the Pixel 8 Pro recording', () => {
  let pixel: Device;
  let dump: string;
  beforeAll(async () => {
    pixel = await prepare(withSerial(loadProfile('pixel-8-pro'), 'SIM0001'));
    dump = await readFile(join(DEVICES_DIR, 'pixel-8-pro', 'getprop.txt'), 'utf8');
  });

  it('answers getprop NAME from the dump, an empty line when unset, the default when given', async () => {
    const props = parseGetprop(dump);
    const out = await pixel.run('getprop ro.product.model; getprop ro.build.fingerprint; getprop no.such.prop; getprop no.such.prop fallback');
    expect(out).toBe(`${props.get('ro.product.model')}\n${props.get('ro.build.fingerprint')}\n\nfallback\n`);
  });

  it('prints a dump holding NUL and control bytes byte for byte, past the NUL', async () => {
    const odd = await prepare(withProps(loadProfile('pixel-8-pro'), { 'ro.product.marketname': 'Lab\u0000phone\u001b' }));
    const out = await odd.run('getprop');
    expect(out).toContain('[ro.product.marketname]: [Lab\u0000phone\u001b]\n');
    expect(parseGetprop(out).get('ro.product.model')).toBe('Pixel 8 Pro');
  });

  it('prints the whole dump, with the serial set, for getprop alone', async () => {
    const out = await pixel.run('getprop');
    const props = parseGetprop(out);
    expect(props.get('ro.serialno')).toBe('SIM0001');
    props.delete('ro.serialno');
    props.delete('ro.boot.serialno');
    expect(props).toEqual(parseGetprop(dump));
  });

  it('runs a batched script with delimiters through real shell syntax', async () => {
    const out = await pixel.run('echo ==P==; getprop ro.product.device; echo ==N==; printf "%s\\n" done');
    expect(out).toBe(`==P==\n${parseGetprop(dump).get('ro.product.device')}\n==N==\ndone\n`);
  });

  it('never reaches host binaries: unknown commands fail the way mksh words it, exit 127', async () => {
    const out = await pixel.run('df; echo "rc=$?"; uname -a; id');
    expect(out).toBe(
      [
        '/system/bin/sh: df: inaccessible or not found',
        'rc=127',
        '/system/bin/sh: uname: inaccessible or not found',
        '/system/bin/sh: id: inaccessible or not found',
        '',
      ].join('\n'),
    );
  });

  it('uses the profile fallback for a known command with unrecorded arguments', async () => {
    const out = await pixel.run('cat /proc/nope; echo "rc=$?"; dumpsys nothing; ls -l /system/bin/su /sbin/su');
    expect(out).toBe(
      [
        'cat: /proc/nope: No such file or directory',
        'rc=1',
        "Can't find service: nothing",
        'ls: /system/bin/su: No such file or directory',
        'ls: /sbin/su: No such file or directory',
        '',
      ].join('\n'),
    );
  });
});

describe('functions and executables', () => {
  it('answer alike, so `command NAME` and `exec` see the same device', async () => {
    const device = await prepare(
      withSerial(
        {
          ...makeProfile('both', {
            getprop: '[ro.product.model]: [X1]\n',
            'dumpsys battery': { output: 'level: 5\n', exitCode: 0 },
            'pm path x': { output: 'package:/x\n', exitCode: 2 },
          }),
          fallbacks: new Map([['ls', { template: 'ls: {arg}: No such file or directory', exitCode: 1 }]]),
        },
        'S1',
      ),
    );
    const probes = ['getprop ro.product.model', 'getprop ro.serialno', 'getprop nope dflt', 'dumpsys battery', 'pm path x', 'pm list', 'ls -a /x /y'];
    for (const probe of probes) {
      const viaFunction = await device.run(`${probe}; echo "rc=$?"`);
      expect(await device.run(`command ${probe}; echo "rc=$?"`), probe).toBe(viaFunction);
      expect(await device.run(`exec ${probe}`), probe).toBe(viaFunction.replace(/rc=\d+\n$/, ''));
    }
  });
});

describe('stub generation', () => {
  it('keeps recorded exit codes and survives quotes and $ in outputs and arguments', async () => {
    const device = await prepare(
      makeProfile('quotes', {
        "echo-it it's": { output: "it's $HOME `id` \\n\n", exitCode: 0 },
        'fail now': { output: 'failed\n', exitCode: 3 },
      }),
    );
    expect(await device.run('echo-it "it\'s"')).toBe("it's $HOME `id` \\n\n");
    expect(await device.run('fail now; echo "rc=$?"')).toBe('failed\nrc=3\n');
    // Arguments reach the fallback as text, never as code.
    const out = await device.run("fail '$(echo injected)' '`id`'");
    expect(out).toContain('$(echo injected) `id`');
    expect(out).not.toContain('uid=');
  });

  it('lets a script feed stdin-free pipelines between stubs', async () => {
    const device = await prepare(makeProfile('pipe', { getprop: '[a.b]: [1]\n[c.d]: [2]\n', 'head -n 1': 'unused\n' }));
    // head here is a stub: it prints its recording, not the first line of its input.
    expect(await device.run('getprop | head -n 1')).toBe('unused\n');
  });
});

describe('wrappers and hanging commands', () => {
  it('timeout runs the wrapped stub, and cuts a hanging one short (exit 124)', async () => {
    const profile = {
      ...makeProfile('wrapped', { 'dumpsys battery': 'AC powered: false\n', 'dumpsys input': 'never printed\n' }),
      wrappers: ['timeout'],
    };
    const dir = await mkdtemp(join(tmpdir(), 'stubs-test-'));
    dirs.push(dir);
    const stubs = await writeStubs(profile, dir, { hangOn: /^dumpsys input$/ });
    const out = await new Promise<string>((resolve) => {
      const child = spawnShell(
        [
          'command -v timeout >/dev/null && echo has-timeout',
          'timeout 1 dumpsys battery; timeout -s KILL 1 dumpsys input; echo "rc=$?"',
          // `command` skips the prelude's functions: the executables and the host's timeout.
          'command timeout 1 dumpsys battery; command timeout 1 dumpsys input; echo "rc=$?"',
        ].join('\n'),
        stubs,
        dir,
      );
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('close', () => resolve(text));
      child.stdin.end();
    });
    expect(out).toBe('has-timeout\nAC powered: false\nrc=124\nAC powered: false\nrc=124\n');
  });

  it('a profile without wrappers has no timeout, like toolbox devices', async () => {
    const device = await prepare(makeProfile('plain', { 'dumpsys battery': 'x\n' }));
    expect(await device.run('command -v timeout || echo none')).toBe('none\n');
  });
});

describe('timeout on a missing command', () => {
  it('words it as toybox does, exit 127, from the function and the executable alike', async () => {
    const device = await prepare({ ...makeProfile('tb', { 'dumpsys battery': 'x\n' }), wrappers: ['timeout'] });
    const expected = 'timeout: exec wm: No such file or directory\nrc=127\n';
    expect(await device.run('timeout 10 wm size; echo "rc=$?"')).toBe(expected);
    expect(await device.run('command timeout -s KILL 10 wm size; echo "rc=$?"')).toBe(expected);
  });
});

describe('time and latency, read from the session environment', () => {
  async function run(profile: Profile, command: string, env: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'stubs-test-'));
    dirs.push(dir);
    const stubs = await writeStubs(profile, dir);
    return new Promise((resolve) => {
      const child = spawnShell(command, stubs, dir, env);
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('close', () => resolve(text));
      child.stdin.end();
    });
  }
  const uptimeProfile = makeProfile('up', { 'cat /proc/uptime': '52784.18 409860.90\n' });

  it('/proc/uptime is the time since SIM_BOOT_US, from the function and the executable alike; the recording without it', async () => {
    expect(await run(uptimeProfile, 'cat /proc/uptime', {})).toBe('52784.18 409860.90\n');
    const boot = String((Date.now() - 1234_560) * 1000);
    const out = await run(uptimeProfile, 'cat /proc/uptime; command cat /proc/uptime', { SIM_BOOT_US: boot });
    const lines = out
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number));
    expect(lines).toHaveLength(2);
    for (const [up, idle] of lines) {
      expect(up).toBeGreaterThanOrEqual(1234.56);
      expect(up).toBeLessThan(1238);
      // The idle figure never goes below the recorded one.
      expect(idle).toBe(409860.9);
    }
    expect(parseUptimeRecording('52784.18 409860.90\n')).toEqual({ up: 5278418, idle: 40986090 });
    expect(parseUptimeRecording('garbage')).toBeUndefined();
  });

  it('a command named in SIM_LAG_NAMES answers SIM_LAG_S late, as function and executable', async () => {
    const profile = makeProfile('lag', { 'dumpsys battery': 'level: 1\n', id: 'uid=2000(shell)\n' });
    const env = { SIM_LAG_NAMES: 'dumpsys pm', SIM_LAG_S: '0.600', SIM_LAG_MS: '600' };
    for (const command of ['dumpsys battery', 'command dumpsys battery']) {
      const started = Date.now();
      expect(await run(profile, command, env)).toBe('level: 1\n');
      expect(Date.now() - started, command).toBeGreaterThanOrEqual(600);
    }
    const started = Date.now();
    expect(await run(profile, 'id; command id', env)).toBe('uid=2000(shell)\nuid=2000(shell)\n');
    expect(Date.now() - started).toBeLessThan(600);
  });
});
