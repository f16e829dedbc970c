import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { listProfiles, loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { baseEnv, runAgent } from './agent-process.js';

// `device-agent list` end to end: one simulated phone per recorded profile,
// plus one that has not been authorized, behind the real adb server.

const adb = new AdbServer();
const profiles = listProfiles();
const phones = profiles.map((name, i) => new SimDevice({ profile: withSerial(loadProfile(name), `LIST${String(i).padStart(2, '0')}`) }));
const locked = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'LOCKED99'), mode: 'unauthorized' });
const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');

interface Row {
  udid: string;
  serial: string;
  state: string;
  model?: string;
  version?: string;
  batteryPercent?: number;
  transportId?: string;
  up: boolean;
  problems: string[];
  message?: string;
}

beforeAll(async () => {
  await adb.start();
  for (const p of phones) await adb.connect(await p.start(), { wait: false });
  await adb.connect(await locked.start(), { wait: false });
  await adb.waitForStates(new Map([...phones.map((p) => [p.serial, 'device'] as [string, string]), [locked.serial, 'unauthorized']]), 30_000);
}, 60_000);

afterAll(async () => {
  await adb.stop();
  await Promise.all([...phones, locked].map((p) => p.stop()));
});

const env = (extra: Record<string, string> = {}) => baseEnv({ ...adb.env, ...extra });

describe('list', () => {
  it('--json has one row per phone of every recorded profile, with what once reports of it and its transport id', async () => {
    const [run, dry] = await Promise.all([runAgent(['list', '--json'], env()), runAgent(['once', '--dry-run'], env())]);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as Row[];
    const reported = new Map(
      (
        JSON.parse(dry.stdout) as { devices: Array<{ udid: string; modelName?: string; platformVersion?: string; battery?: { percentage?: string } }> }
      ).devices.map((d) => [d.udid, d]),
    );
    for (const [i, name] of profiles.entries()) {
      const udid = `LIST${String(i).padStart(2, '0')}`;
      const row = rows.find((r) => r.udid === udid);
      expect(row, name).toBeDefined();
      expect(row!.serial, name).toBe(phones[i]!.serial);
      expect(row!.state, name).toBe('device');
      const report = reported.get(udid)!;
      expect(row!.model, name).toBe(report.modelName);
      expect(row!.version, name).toBe(report.platformVersion);
      expect(row!.batteryPercent, name).toBe(report.battery?.percentage === undefined ? undefined : Number(report.battery.percentage));
      expect(row!.transportId, name).toMatch(/^\d+$/);
      expect(row!.up, name).toBe(true);
    }
    // The kernel's page size, an inventory fact no DeviceInfo field carries: the Pixel's recorded `getconf PAGE_SIZE`;
    // a profile without the recording (its phone's shell has no getconf, or it was not recorded) has none: unknown.
    expect((rows.find((r) => r.udid === `LIST${String(profiles.indexOf('pixel-8-pro')).padStart(2, '0')}`) as { pageSizeBytes?: number }).pageSizeBytes).toBe(
      4096,
    );
    expect(rows.filter((r) => (r as { pageSizeBytes?: number }).pageSizeBytes !== undefined)).toHaveLength(1);
    // Every profile but one recorded without a model name shows one.
    expect(rows.filter((r) => r.model).length).toBeGreaterThanOrEqual(profiles.length - 1);
    // The unauthorized phone is listed over TCP without a udid: left out of reports, but list shows every
    // device adb lists, in its state, with what to do (issue 34, finding 5: it got no row, only a line on stderr).
    const lockedRow = rows.find((r) => r.serial === locked.serial);
    expect(lockedRow).toMatchObject({ state: 'unauthorized', up: false });
    expect((lockedRow as { message?: string }).message).toMatch(/USB debugging is not authorized/);
    expect(rows.length).toBe(phones.length + 1);
    // Nothing else on stdout: the logs went to stderr.
    expect(run.stdout.trim().startsWith('[')).toBe(true);
  }, 90_000);

  it('shows the hub port the settings map to a phone, by udid or by adb serial', async () => {
    const bySerial = phones[1]!.serial;
    const run = await runAgent(['list', '--json'], env({ DEVICE_AGENT_HUB_PORTS: `LIST00=1-1.4:3,${bySerial}=2-1:7` }));
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<Row & { hub?: string; hubPort?: number }>;
    expect(rows.find((r) => r.udid === 'LIST00')).toMatchObject({ hub: '1-1.4', hubPort: 3 });
    expect(rows.find((r) => r.serial === bySerial)).toMatchObject({ hub: '2-1', hubPort: 7 });
    expect(rows.filter((r) => r.hub !== undefined)).toHaveLength(2);
    const table = await runAgent(['list'], env({ DEVICE_AGENT_HUB_PORTS: 'LIST00=1-1.4:3' }));
    // In the one USB column (issue 61), after "tcp": adb reaches these phones over TCP.
    expect(table.stdout.split('\n')[0]).toMatch(/\sUSB\s+READY\s+PROBLEMS$/);
    expect(table.stdout.split('\n').find((l) => l.startsWith(phones[0]!.serial))).toMatch(/\stcp, hub 1-1\.4:3(\s|$)/);
  }, 90_000);

  it('prints a table for people: a header, one line per device, a note for each device with something to say, no colour when piped', async () => {
    const run = await runAgent(['list'], env());
    expect(run.code, run.stderr).toBe(0);
    const [table, notes] = run.stdout.trimEnd().split('\n\n');
    const lines = table!.split('\n');
    // HEALTH, CAPACITY and CYCLES show because recordings carry them; READY because the shipped readiness checks are on.
    expect(lines[0]).toMatch(/^SERIAL\s+UDID\s+STATE\s+MODEL\s+OS\s+BATTERY\s+TEMP\s+CHARGING\s+HEALTH\s+CAPACITY\s+CYCLES\s+FREE\s+USB\s+READY\s+PROBLEMS$/);
    // One row per phone and one for the unauthorized network phone.
    expect(lines).toHaveLength(2 + profiles.length);
    // Its problem once: the row says unauthorized, the note under the table what to do; no log line says it again (issue 61).
    expect(lines.find((l) => l.startsWith(locked.serial))).toMatch(/\sunauthorized$/);
    expect(notes!.split('\n').find((l) => l.startsWith(`${locked.serial}: `))).toMatch(/USB debugging is not authorized/);
    expect(run.stderr).not.toContain(locked.serial);
    expect(run.stderr).not.toMatch(/"level":"warn"/);
    expect(run.stdout).not.toContain('\u001b[');
    const pixel = lines.find((l) => l.includes(phones[profiles.indexOf('pixel-8-pro')]!.serial))!;
    expect(pixel).toMatch(/ device\s+Pixel 8 Pro\s+Android \d+/);
    expect(pixel).toMatch(/\btcp\b/);
  }, 90_000);

  it('while the adb server is down: the phones the daemon last reported, their state not read now, as the report carries them', async () => {
    const e = env({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${await freePort()}` });
    // What the daemon last delivered (reported-devices.json as it writes it): adb's word then was "device".
    mkdirSync(e.DEVICE_AGENT_STATE_DIR!, { recursive: true });
    const stored = { udid: 'KEPT0001', state: 'device', status: 'AVAILABLE', serialNumber: 'KEPT0001', platformName: 'ANDROID', modelName: 'Pixel 8 Pro' };
    writeFileSync(join(e.DEVICE_AGENT_STATE_DIR!, 'reported-devices.json'), JSON.stringify({ savedAt: new Date().toISOString(), devices: [stored] }) + '\n');
    const [json, table] = await Promise.all([runAgent(['list', '--json'], e), runAgent(['list'], e)]);
    expect(json.code).toBe(1);
    const [row] = JSON.parse(json.stdout) as Row[];
    expect(row).toMatchObject({ udid: 'KEPT0001', state: 'unknown', up: false });
    // Why, in the words the report gives the cloud: its row's note under the table too.
    const why = /^the agent has not read its android devices since it started \(.*no adb server at .*this is the device as the agent last reported it/;
    expect(row!.message).toMatch(why);
    expect(table.stdout.split('\n').find((l) => l.startsWith('KEPT0001 '))).toMatch(/^KEPT0001\s+KEPT0001\s+unknown\s+Pixel 8 Pro\s/);
    expect(table.stdout.split('\n').find((l) => l.startsWith('KEPT0001: ')))?.toMatch(
      /^KEPT0001: the agent has not read its android devices since it started /,
    );
  }, 60_000);

  it('paints states on a terminal, and not with NO_COLOR', async () => {
    // script(1) gives the agent a pseudo-terminal, as an operator's shell does.
    // Not spawnSync: the simulated phones answer from this very process.
    const viaTty = (extra: Record<string, string>) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn('script', ['-qec', `${process.execPath} ${bin} list`, '/dev/null'], { env: { ...env(), ...extra } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (status) => done({ status, stdout, stderr }));
      });
    const tty = await viaTty({});
    expect(tty.status, tty.stderr).toBe(0);
    expect(tty.stdout).toContain('\u001b[32mdevice');
    const plain = await viaTty({ NO_COLOR: '1' });
    expect(plain.stdout).toContain('SERIAL');
    expect(plain.stdout).not.toContain('\u001b[32m');
  }, 120_000);
});
