import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemTool } from '../support/system-tool.js';

// Checks the shipped units with the real systemd-analyze, the way an admin's
// host would load them, so that a careless edit (a misspelt directive, a
// dropped hardening line) fails CI instead of a lab host.

const unitDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../systemd');
const agentUnit = 'device-agent.service';
const adbUnit = 'device-agent-adb.service';
const maxAgentExposure = 2.5;
const maxAdbExposure = 2.5;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function systemdAnalyze(args: string[]): Promise<Run> {
  const tool = systemTool('systemd-analyze');
  // verify runs man for each Documentation= page.
  if (args[0] === 'verify') systemTool('man');
  return new Promise((done) => {
    execFile(
      tool,
      ['--no-pager', ...args],
      { env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: 'cat', LC_ALL: 'C.UTF-8' } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** Directive values of a unit file, by "Section.Key"; repeated keys keep every value. */
function directives(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] ?? '';
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = `${section}.${line.slice(0, eq).trim()}`;
    found.set(key, [...(found.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return found;
}

function one(unit: Map<string, string[]>, key: string): string | undefined {
  const values = unit.get(key);
  return values?.[values.length - 1];
}

function exposure(output: string, unit: string): number | undefined {
  const match = new RegExp(`Overall exposure level for ${unit.replace('.', '\\.')}: ([0-9.]+)`).exec(output);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * A throw-away root holding the host's own units (sysinit.target and the
 * like, which every service depends on), our units, and stub executables at
 * the ExecStart paths: verify checks that those exist, and the agent lives
 * in /opt/device-agent only on a lab host.
 */
async function makeRoot(units: Record<string, string>, stubs: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'device-agent-units-'));
  const hostUnits = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((dir) => existsSync(join(dir, 'sysinit.target')));
  if (hostUnits === undefined) throw new Error('no sysinit.target on this host: is systemd installed?');
  await cp(hostUnits, join(root, 'usr/lib/systemd/system'), { recursive: true, verbatimSymlinks: true });
  await mkdir(join(root, 'etc/systemd/system'), { recursive: true });
  for (const [name, text] of Object.entries(units)) await writeFile(join(root, 'etc/systemd/system', name), text);
  for (const path of stubs) {
    await mkdir(join(root, dirname(path)), { recursive: true });
    await writeFile(join(root, path), '#!/bin/sh\n');
    await chmod(join(root, path), 0o755);
  }
  return root;
}

function execPaths(text: string): string[] {
  const lines = ['Service.ExecStart', 'Service.ExecReload'].flatMap((key) => directives(text).get(key) ?? []);
  return lines.map((line) => line.replace(/^[-@:+!]+/, '').split(/\s+/)[0] ?? '');
}

describe('systemd units', () => {
  const texts: Record<string, string> = {};
  const roots: string[] = [];

  beforeAll(async () => {
    for (const name of [agentUnit, adbUnit]) texts[name] = await readFile(join(unitDir, name), 'utf8');
  });

  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  async function rootFor(units: Record<string, string>, stubs?: string[]): Promise<string> {
    const root = await makeRoot(units, stubs ?? Object.values(units).flatMap(execPaths));
    roots.push(root);
    return root;
  }

  it('pass systemd-analyze verify without a single message', async () => {
    const root = await rootFor({ [agentUnit]: texts[agentUnit]!, [adbUnit]: texts[adbUnit]! });
    for (const name of [agentUnit, adbUnit]) {
      const run = await systemdAnalyze(['verify', `--root=${root}`, name]);
      expect({ name, ...run }).toEqual({ name, code: 0, stdout: '', stderr: '' });
    }
  });

  it('the verify harness reports a misspelt directive and a missing binary', async () => {
    const misspelt = texts[agentUnit]!.replace('ProtectSystem=strict', 'ProtectSytem=strict');
    const root = await rootFor({ [agentUnit]: misspelt, [adbUnit]: texts[adbUnit]! });
    const typo = await systemdAnalyze(['verify', `--root=${root}`, agentUnit]);
    expect(typo.stderr).toMatch(/ProtectSytem/);

    const noNode = await rootFor({ [agentUnit]: texts[agentUnit]!, [adbUnit]: texts[adbUnit]! }, ['/usr/bin/adb']);
    const missing = await systemdAnalyze(['verify', `--root=${noNode}`, agentUnit]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/node_modules\/node\/bin\/node/);
  });

  it(`rate the agent unit at ${maxAgentExposure} or lower`, async () => {
    const run = await systemdAnalyze(['security', '--offline=yes', join(unitDir, agentUnit)]);
    expect(run.code).toBe(0);
    const score = exposure(run.stdout, agentUnit);
    expect(score, run.stdout).toBeDefined();
    expect(score).toBeLessThanOrEqual(maxAgentExposure);
  });

  it(`rate the adb unit at ${maxAdbExposure} or lower despite USB access`, async () => {
    const run = await systemdAnalyze(['security', '--offline=yes', join(unitDir, adbUnit)]);
    expect(run.code).toBe(0);
    const score = exposure(run.stdout, adbUnit);
    expect(score, run.stdout).toBeDefined();
    expect(score).toBeLessThanOrEqual(maxAdbExposure);
  });

  it('the hub helper (issue 33) costs the agent unit nothing: 1.1 as at b3b4d4c, plus the 0.6 of reading the kernel log (1.7); the helper is rated 1.0 or lower', async () => {
    const agent = await systemdAnalyze(['security', '--offline=yes', join(unitDir, agentUnit)]);
    expect(exposure(agent.stdout, agentUnit)).toBeLessThanOrEqual(1.7);
    const helper = await systemdAnalyze(['security', '--offline=yes', join(unitDir, 'device-agent-hub@.service')]);
    expect(exposure(helper.stdout, 'device-agent-hub@i.service'), helper.stdout).toBeLessThanOrEqual(1.0);
  });

  it('the hub helper: one process per request, told its peer, root without capabilities, USB device nodes only, no network', async () => {
    const socket = directives(await readFile(join(unitDir, 'device-agent-hub.socket'), 'utf8'));
    expect(one(socket, 'Socket.ListenStream')).toBe('/run/device-agent-hub.sock');
    expect(one(socket, 'Socket.Accept')).toBe('yes');
    const unit = directives(await readFile(join(unitDir, 'device-agent-hub@.service'), 'utf8'));
    expect(one(unit, 'Service.ExecStart')).toMatch(/hub-helper\/serve\.js --peer %i /);
    expect(one(unit, 'Service.CapabilityBoundingSet')).toBe('');
    expect(one(unit, 'Service.DevicePolicy')).toBe('closed');
    expect(unit.get('Service.DeviceAllow')).toEqual(['char-usb_device rw']);
    expect(one(unit, 'Service.PrivateNetwork')).toBe('yes');
    expect(one(unit, 'Service.NoNewPrivileges')).toBe('yes');
    // The agent's own unit gives up nothing for it.
    const agent = directives(texts[agentUnit]!);
    for (const [key, value] of <Array<[string, string]>>[
      ['Service.PrivateDevices', 'yes'],
      ['Service.DevicePolicy', 'closed'],
      ['Service.ProtectKernelTunables', 'yes'],
      ['Service.NoNewPrivileges', 'yes'],
    ])
      expect(one(agent, key)).toBe(value);
    expect(agent.get('Service.SupplementaryGroups')).toBeUndefined();
  });

  it('the agent reads the kernel log (the USB layer) with the least that works: /dev/kmsg alone, read-only, and CAP_SYSLOG alone', () => {
    const unit = directives(texts[agentUnit]!);
    // /dev/kmsg in the private /dev, "-" so that a host without it still starts the agent.
    expect(one(unit, 'Service.PrivateDevices')).toBe('yes');
    expect(unit.get('Service.BindReadOnlyPaths')).toEqual(['-/dev/kmsg']);
    expect(unit.get('Service.BindPaths')).toBeUndefined();
    expect(unit.get('Service.DeviceAllow')).toEqual(['/dev/kmsg r']);
    // kernel.dmesg_restrict=1 (Debian's default): CAP_SYSLOG, of the host's user namespace.
    expect(one(unit, 'Service.CapabilityBoundingSet')).toBe('CAP_SYSLOG');
    expect(one(unit, 'Service.AmbientCapabilities')).toBe('CAP_SYSLOG');
    expect(one(unit, 'Service.PrivateUsers') ?? 'no').toBe('no');
    // ProtectKernelLogs=yes denies /dev/kmsg whatever else the unit says.
    expect(one(unit, 'Service.ProtectKernelLogs') ?? 'no').toBe('no');
    // What CAP_SYSLOG would show besides: kernel addresses.
    expect(one(unit, 'Service.InaccessiblePaths')?.split(/\s+/)).toEqual(['-/proc/kallsyms', '-/proc/modules']);
    expect(one(unit, 'Service.NoNewPrivileges')).toBe('yes');
  });

  it('reads the exposure score only from the overall line', () => {
    expect(exposure('→ Overall exposure level for device-agent.service: 1.3 OK 🙂\n', agentUnit)).toBe(1.3);
    expect(exposure('→ Overall exposure level for other.service: 1.3 OK\n', agentUnit)).toBeUndefined();
    expect(exposure('garbage', agentUnit)).toBeUndefined();
  });

  it('the agent runs the pinned Node, wants (not requires) the adb unit and gets its key as a credential', () => {
    const unit = directives(texts[agentUnit]!);
    expect(one(unit, 'Service.ExecStart')).toMatch(
      /^\/opt\/device-agent\/node_modules\/node\/bin\/node (--\S+ )*\/opt\/device-agent\/bin\/device-agent\.js run\b/,
    );
    // Requires= restarted the agent with every adb restart, and a fresh agent left ghosts.
    expect(one(unit, 'Unit.Requires')).toBeUndefined();
    expect(one(unit, 'Unit.Wants')?.split(/\s+/)).toContain(adbUnit);
    expect(one(unit, 'Unit.After')?.split(/\s+/)).toContain(adbUnit);
    // iPhones (issue 14): after usbmuxd when present, never requiring it.
    expect(one(unit, 'Unit.After')?.split(/\s+/)).toContain('usbmuxd.service');
    expect(`${one(unit, 'Unit.Requires') ?? ''} ${one(unit, 'Unit.Wants') ?? ''}`).not.toContain('usbmuxd');
    expect(unit.get('Service.LoadCredential')).toContain('api-key:/etc/device-agent/api-key');
    expect(one(unit, 'Service.StateDirectory')).toBe('device-agent');
    // systemctl reload: SIGHUP, a report now (src/cli/run.ts); once beside the service says to run it.
    expect(one(unit, 'Service.ExecReload')).toBe(`/bin/sh -c 'kill -HUP "$MAINPID"'`);
    // V8's JIT needs writable executable memory.
    expect(one(unit, 'Service.MemoryDenyWriteExecute') ?? 'no').toBe('no');
    // The agent must not be able to open USB devices itself: the one device it may open is the kernel log, for reading.
    expect(unit.get('Service.DeviceAllow')).toEqual(['/dev/kmsg r']);
    expect(one(unit, 'Service.PrivateDevices')).toBe('yes');
  });

  it('the adb unit keeps its key in its state directory and opens only USB devices', () => {
    const unit = directives(texts[adbUnit]!);
    expect(one(unit, 'Service.ExecStart')).toBe('/usr/bin/adb -P 5037 server nodaemon');
    expect(one(unit, 'Service.Restart')).toBe('always');
    const state = one(unit, 'Service.StateDirectory');
    expect(state).toBeDefined();
    expect(unit.get('Service.Environment')).toContain(`HOME=%S/${state}`);
    expect(one(unit, 'Service.DevicePolicy')).toBe('closed');
    expect(unit.get('Service.DeviceAllow')).toEqual(['char-usb_device rw']);
    expect(one(unit, 'Service.SupplementaryGroups')).toBe('plugdev');
    expect(one(unit, 'Service.User')).not.toBe('root');
  });
});
