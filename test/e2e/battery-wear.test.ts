import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../cloud-double/cloud-double.js';
import { fixture } from '../platforms/android/inventory/fixture.js';
import { loadProfile, withSerial, type Profile } from '../sim/profile.js';
import { baseEnv, runAgent } from './agent-process.js';
import { checkOf, doctorJson } from './doctor-checks.js';
import { DaemonBed } from './daemon-bed.js';
import type { SimDevice } from '../sim/sim-device.js';

// The battery wear signals in the running daemon and in `list`: the real adb
// server, simulated phones answering `dumpsys battery` with recordings of
// real phones, the cloud double (which refuses any field the contract does
// not have), /metrics over HTTP.
//
// FULL0001  Samsung lab phone of zebrunner #150: 100 %, FULL, on USB, ASOC 96, 1 cycle
// WORN0002  Samsung of 2018 (tistory): ASOC 77, 1764 cycles, charging on USB
// FAST0003  Xiaomi on HyperOS: a charger offering 11 V
// SICK0004  the AOSP 14 recording: health OVERHEAT

const bed = new DaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;
let statusUrl = '';
/** By udid. */
const phones: Record<string, SimDevice> = {};

interface Reported {
  udid: string;
  status: string;
  message?: string;
  battery?: Record<string, unknown>;
}
const devicesOf = (r: RecordedRequest): Reported[] => (r.body as { devices?: Reported[] } | undefined)?.devices ?? [];
const find = (r: RecordedRequest, udid: string): Reported | undefined => devicesOf(r).find((d) => d.udid === udid);

function withBattery(name: string, serial: string, recording?: string): Profile {
  const profile = withSerial(loadProfile(name), serial);
  if (recording === undefined) return profile;
  const commands = new Map(profile.commands);
  commands.set('dumpsys battery', { output: fixture('battery', recording), exitCode: 0 });
  return { ...profile, commands };
}

async function metrics(): Promise<string> {
  return (await fetch(`${statusUrl}/metrics`)).text();
}
function series(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const HELD_FULL_AFTER = '2';

beforeAll(async () => {
  await bed.start();
  phones.FULL0001 = await bed.plug('FULL0001');
  phones.WORN0002 = await bed.plug('WORN0002');
  await phones.WORN0002.setProfile(withBattery('samsung-galaxy-s25-plus', 'WORN0002', 'samsung-2016-battery-tistory-usb-charging.txt'));
  phones.FAST0003 = await bed.plug('FAST0003', { profile: 'xiaomi-poco-f6' });
  phones.SICK0004 = await bed.plug('SICK0004');
  await phones.SICK0004.setProfile(withBattery('samsung-galaxy-s25-plus', 'SICK0004', 'aosp-android14-overheat.txt'));
  const agent = bed.run({
    DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    DEVICE_AGENT_JITTER_SECONDS: '0',
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_HEALTH_BATTERY_HELD_FULL_SECONDS: HELD_FULL_AFTER,
  });
  const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
  statusUrl = `http://${String(line.listen)}`;
}, 60_000);
afterAll(() => bed.stop());

describe('battery wear signals in the running daemon', () => {
  it('each phone is reported with the message of its signal, status unchanged, and nothing the contract lacks', async () => {
    const put = await cloud.waitForPut((r) => /battery held full/.test(find(r, 'FULL0001')?.message ?? '') && find(r, 'SICK0004') !== undefined, 30_000);
    // The double checks every body against the contract and refuses unknown fields.
    expect(put.answer?.status).toBe(200);
    expect(find(put, 'FULL0001')!.message).toMatch(/^battery held full on external power for \d+ s \(limit 2 s\): /);
    // Samsung's wear figures are the wear feature's: its notes on the message.
    expect(find(put, 'WORN0002')!.message).toMatch(/battery holds 77 % of its design capacity \(limit 80 %\): replace the battery or retire the phone/);
    expect(find(put, 'WORN0002')!.message).toMatch(/battery past 800 full charge cycles \(1764\)/);
    expect(find(put, 'FAST0003')!.message).toMatch(/^the charger offers 11\.0 V \(limit 6\.0 V\): /);
    expect(find(put, 'SICK0004')!.message).toMatch(/^the phone reports its battery health as OVERHEAT: /);
    for (const d of devicesOf(put)) {
      expect(d.status, d.udid).toBe('AVAILABLE');
      expect(d, d.udid).not.toHaveProperty('batteryDetail');
      expect(
        Object.keys(d.battery ?? {}).every((k) => ['status', 'temperature', 'voltage', 'health', 'technology', 'percentage'].includes(k)),
        d.udid,
      ).toBe(true);
    }
    expect(find(put, 'SICK0004')!.battery).toMatchObject({ health: 'OVERHEAT' });
    // One warning per phone and problem, however many reports.
    const warnings = bed.agent!.logs().filter((l) => l.level === 'warn' && typeof l.problem === 'string');
    expect(warnings.map((l) => `${String(l.udid)} ${String(l.problem)}`).sort()).toEqual([
      'FAST0003 charging_voltage_high',
      'FULL0001 battery_held_full',
      'SICK0004 battery_unhealthy',
    ]);
    const wear = bed.agent!.logs().filter((l) => l.level === 'warn' && typeof l.reason === 'string');
    expect(wear.map((l) => `${String(l.serial)} ${String(l.reason)}`).sort()).toEqual([
      `${phones.WORN0002!.serial} battery_capacity`,
      `${phones.WORN0002!.serial} battery_cycles`,
    ]);
  }, 60_000);

  it('/metrics: the problems, the time held full growing, the charger in volts, cycles and state of health', async () => {
    const first = await metrics();
    const heldAt = series(first, 'device_agent_device_battery_full_seconds', 'udid="FULL0001"')!;
    expect(heldAt).toBeGreaterThan(Number(HELD_FULL_AFTER));
    expect(series(first, 'device_agent_device_problem', 'udid="FULL0001",problem="battery_held_full"')).toBe(1);
    expect(series(first, 'device_agent_device_wear_days_left', 'udid="WORN0002",reason="battery_capacity"')).toBe(0);
    expect(series(first, 'device_agent_device_wear_days_left', 'udid="WORN0002",reason="battery_cycles"')).toBe(0);
    expect(series(first, 'device_agent_device_wear_days_left', 'udid="FULL0001",reason="battery_capacity"')).toBeUndefined();
    expect(series(first, 'device_agent_device_problem', 'udid="FAST0003",problem="charging_voltage_high"')).toBe(1);
    expect(series(first, 'device_agent_device_problem', 'udid="SICK0004",problem="battery_unhealthy"')).toBe(1);
    expect(series(first, 'device_agent_device_battery_cycles', 'udid="FULL0001"')).toBe(1);
    expect(series(first, 'device_agent_device_battery_health_percent', 'udid="FULL0001"')).toBe(96);
    expect(series(first, 'device_agent_device_battery_cycles', 'udid="WORN0002"')).toBe(1764);
    expect(series(first, 'device_agent_device_battery_health_percent', 'udid="WORN0002"')).toBe(77);
    expect(series(first, 'device_agent_device_charger_voltage_volts', 'udid="FAST0003"')).toBe(11);
    // Not full (80 %, 95 % charging), or no charger figure: 0 and absent.
    expect(series(first, 'device_agent_device_battery_full_seconds', 'udid="FAST0003"')).toBe(0);
    expect(series(first, 'device_agent_device_charger_voltage_volts', 'udid="FULL0001"')).toBeUndefined();
    expect(series(first, 'device_agent_device_battery_cycles', 'udid="FAST0003"')).toBeUndefined();
    const after = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > after + 2_500, 15_000);
    expect(series(await metrics(), 'device_agent_device_battery_full_seconds', 'udid="FULL0001"')!).toBeGreaterThan(heldAt);
  }, 40_000);

  it('unplugged from power, the held-full phone is no longer held full: one line, the gauge at 0', async () => {
    const profile = withBattery('samsung-galaxy-s25-plus', 'FULL0001');
    const recording = profile.commands.get('dumpsys battery')!;
    const commands = new Map(profile.commands);
    commands.set('dumpsys battery', {
      ...recording,
      output: recording.output.replace('USB powered: true', 'USB powered: false').replace('status: 5', 'status: 3'),
    });
    await phones.FULL0001!.setProfile({ ...profile, commands });
    const changed = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > changed && find(r, 'FULL0001') !== undefined && find(r, 'FULL0001')!.message === undefined, 15_000);
    expect(series(await metrics(), 'device_agent_device_battery_full_seconds', 'udid="FULL0001"')).toBe(0);
    expect(
      bed
        .agent!.logs()
        .filter((l) => l.level === 'info' && l.problem === 'battery_held_full')
        .map((l) => l.msg),
    ).toEqual(['device FULL0001: battery held full is over']);
  }, 30_000);

  it("list: the problems, the phone's word for its battery, its capacity and cycles in plain columns, each problem's sentence under the table; --json with the figures", async () => {
    const env = baseEnv({ ...bed.adb.env });
    const [json, table] = await Promise.all([runAgent(['list', '--json'], env), runAgent(['list'], env)]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown> & { udid: string; problems: string[] }>;
    const row = (udid: string) => rows.find((r) => r.udid === udid)!;
    expect(row('WORN0002')).toMatchObject({ batteryCycles: 1764, batteryHealthPercent: 77, problems: [], wear: { batterySource: 'samsung', daysLeft: 0 } });
    expect(row('FAST0003')).toMatchObject({ chargerMillivolts: 11000, problems: ['charging_voltage_high'] });
    expect(row('SICK0004')).toMatchObject({ batteryHealth: 'OVERHEAT', problems: ['battery_unhealthy'] });
    // One inventory cannot tell how long a battery has been full.
    expect(row('FULL0001')).toMatchObject({ batteryFullSeconds: 0, batteryCycles: 1, batteryHealthPercent: 96 });
    expect(table.code, table.stderr).toBe(0);
    const [head, notes] = table.stdout.trimEnd().split('\n\n');
    const lines = head!.split('\n');
    expect(lines[0]).toMatch(/\bCHARGING\s+HEALTH\s+CAPACITY\s+CYCLES\s+WEAR\s+FREE\b/);
    const line = (udid: string) => lines.find((l) => l.includes(` ${udid} `))!;
    expect(line('WORN0002')).toMatch(/ good\s+77%\s+1764\s+battery_capacity now\s/);
    expect(line('FAST0003')).toMatch(/ good\s.*charging_voltage_high$/);
    expect(line('SICK0004')).toMatch(/ overheat\s.*battery_unhealthy$/);
    // The charger's volts are the problem's sentence, once, under the table: not a cell, not a log line (issue 61).
    expect(head).not.toMatch(/ V\b/);
    const note = (udid: string) => notes!.split('\n').find((l) => l.startsWith(`${phones[udid]!.serial}: `));
    expect(note('FAST0003')).toMatch(/the charger offers 11\.0 V/);
    expect(table.stderr).not.toMatch(/charger offers/);
  }, 60_000);

  it('doctor: a warning with what to do for the battery problems one look shows (held full needs the daemon), and wear in plain words', async () => {
    const [run, json] = await Promise.all([runAgent(['doctor'], baseEnv({ ...bed.adb.env })), runAgent(['doctor', '--json'], baseEnv({ ...bed.adb.env }))]);
    const lines = run.stdout.split('\n');
    const warning = (serial: string, problem: string): [string, string | undefined] => {
      const at = lines.findIndex((l) => l === `[WARN] device ${serial}: ${problem}`);
      return [lines[at] ?? `no line for ${serial} ${problem}`, lines[at + 1]];
    };
    const serial = (udid: string) => phones[udid]!.serial;
    expect(warning(serial('WORN0002'), 'worn: battery capacity now, battery charge cycles now')[1]).toMatch(
      /^ {7}-> battery holds 77 % of its design capacity \(limit 80 %\).*; battery past 800 full charge cycles \(1764\)/,
    );
    expect(warning(serial('FAST0003'), 'charging voltage high')[1]).toMatch(/^ {7}-> the charger offers 11\.0 V/);
    expect(warning(serial('SICK0004'), 'battery unhealthy')[1]).toMatch(/^ {7}-> the phone reports its battery health as OVERHEAT: /);
    // The held-full phone's battery is fine on one look: it cannot tell how long it has been full. Its readiness is
    // unread, never called ready (issue 60, item 8): the Samsung recording has no `settings` lists to read.
    const full = doctorJson(json.stdout).checks.filter((c) => c.phone === serial('FULL0001'));
    expect(full.map((c) => [c.id, c.status])).toEqual([
      ['phone.readiness', 'unread'],
      ['phone', 'ok'],
      ['phone.battery', 'ok'],
      ['phone.wear', 'ok'],
    ]);
    expect(checkOf(json.stdout, 'phone', serial('FULL0001')).finding).toMatch(/^device 127\.0\.0\.1:\d+: device, SM-S936B/);
    expect(checkOf(json.stdout, 'phone.readiness', serial('FULL0001')).finding).toBe(
      `device ${serial('FULL0001')}: readiness unread: its readiness sections answered none of the checks`,
    );
    expect(checkOf(json.stdout, 'phone.wear', serial('FULL0001')).finding).toMatch(/^device .*: wear: battery 96 % of design, 1 cycles/);
  }, 60_000);
});
