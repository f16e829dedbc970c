import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf } from '../../src/features/wear/forecast.js';
import { PROBLEMS } from '../../src/features/health/rules.js';
import { parseVersion } from '../../packaging/version.js';
import { fixture as wearFixture, withWear } from '../features/wear/section.js';
import { freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial, type Profile } from '../sim/profile.js';
import { dashboard, expand, panelQueries, variableQueries } from './dashboard.js';
import { parseExposition, servedFamilies, type Labels } from './exposition.js';
import { olderRelease, SimulatedHost } from './lab-hosts.js';
import { eventually, PrometheusServer, type Rule } from './prometheus-server.js';
import { selectors, templateQueries, type Selector } from './promql-selectors.js';
import { ScrapeTap, SEQUENCE } from './scrape-tap.js';
import { and, count, join, keyOf, map, max, or, orZero, sum, topk, where, World, type Scrape, type Series } from './world.js';

// The dashboard and the rules on a real Prometheus (Debian's) scraping three
// real agents (the compiled CLI, `device-agent run`), each on a simulated
// lab of its own, and a fourth target where no agent answers. Every panel's
// query and every recording rule must answer what the agents' own /metrics
// imply: Prometheus scrapes each agent through a tap (scrape-tap.ts) that
// keeps the text of every scrape, and the test computes each answer from
// those texts alone (world.ts), then asks Prometheus's HTTP API at the same
// instant. The metric name aside, the labels must be the same and the
// values equal (to 1e-9: sums may add in another order).
//
// rack-a: phones on USB ports of hub 1-1 (adb's usb paths, a sysfs tree):
//   one ready, one not (stay awake off), one worn (/data/local/tmp past its
//   limit, app ids nearly used up); the kernel log of aioc-122 (enumeration
//   failures on port 2-3).
// rack-b: phones on hub 2-1: one at 47 °C, one the cloud stored and then
//   refused (quarantined: quarantine.failures is 1 here); a phone nobody
//   authorized and a network device that is off, over TCP.
// rack-c: an older release (2001.01) with a phone whose battery fades (30
//   days of history: due in days), a plain one, and an iPhone that rebooted
//   while go-ios kept its tunnel (stale).

const RULES = fileURLToPath(new URL('../../deploy/monitoring/device-agent.rules.yml', import.meta.url));
const SCRAPE_SECONDS = 2;
/** $__rate_interval as the dashboard is expanded here: five scrapes. */
const RATE = 10;
const OLD_VERSION = '2001.01';

const readiness = (name: string): string => readFileSync(new URL(`../features/readiness/fixtures/${name}`, import.meta.url), 'utf8');
// The readiness lists of a LineageOS Galaxy A5 (test/features/readiness/fixtures), edited to meet the default baseline.
const READY_GLOBAL = readiness('lineage18-sm-a520f-global.txt')
  .replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7')
  .replace(/^(window|transition)_animation_scale=1\.0$/gm, '$1_animation_scale=0')
  .replace('animator_duration_scale=1.0', 'animator_duration_scale=0')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

function pixel(serial: string, global?: string): Profile {
  const base = withSerial(loadProfile('pixel-8-pro'), serial);
  if (global === undefined) return base;
  const commands = new Map(base.commands);
  commands.set('settings list global', { output: global, exitCode: 0 });
  commands.set('settings list system', { output: readiness('lineage18-sm-a520f-system.txt'), exitCode: 0 });
  commands.set('dumpsys window policy', { output: readiness('dumpsys-window-policy-keyguard.txt'), exitCode: 0 });
  return { ...base, commands };
}

/** The recorded Smartron T5911 with its battery at `tenths` of a °C (test/monitoring/lab.ts's phone). */
function smartron(serial: string, tenths = 250): Profile {
  const profile = withSerial(loadProfile('smartron-t5911-android8.1'), serial);
  const commands = new Map(profile.commands);
  const battery = commands.get('dumpsys battery')!;
  commands.set('dumpsys battery', { ...battery, output: battery.output.replace(/temperature: \d+/, `temperature: ${tenths}`) });
  commands.set('cat /proc/uptime', { output: '5000.10 9000.20\n', exitCode: 0 });
  return { ...profile, commands };
}

/** A kernel log of /dev/kmsg records: aioc-122's lines (test/features/usb/fixtures), enumeration failures on port 2-3. */
function aioc122(): string {
  const dmesg = readFileSync(new URL('../features/usb/fixtures/aioc-122.dmesg', import.meta.url), 'utf8');
  return (
    dmesg
      .split('\n')
      .filter((l) => l.includes('] '))
      .map((l, i) => `3,${i + 1},${(i + 1) * 1000},-;${l.slice(l.indexOf('] ') + 2)}`)
      .join('\n') + '\n'
  );
}

// The Mi 6's bms uevent with its full capacity at 85 % of design, fading half a point a day over 30 days of history.
const FADING_BMS = wearFixture('mi6-c1_atl-bms-uevent.txt').replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, 'POWER_SUPPLY_CHARGE_FULL=2847500');
function wearHistory(udid: string): string {
  const today = dayOf(Date.now());
  const history = Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 100 - Math.floor(i / 2) }));
  return JSON.stringify({ phones: { [udid]: history } });
}

const older = olderRelease(OLD_VERSION, 'c0ffee000001');
const REFUSED = 'REFUSED02';
const IPHONE = '00008120-0000000000C0001';
const hosts = {
  a: new SimulatedHost({
    phones: [
      { serial: 'READY001', profile: pixel('READY001', READY_GLOBAL), port: '1-1.1' },
      { serial: 'NOTRDY02', profile: pixel('NOTRDY02', READY_GLOBAL.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0')), port: '1-1.2' },
      {
        serial: 'WORN0003',
        profile: withWear(pixel('WORN0003'), {
          packages: 'package:io.appium.settings uid:10300\npackage:org.example.leftover uid:19993\n',
          tmp: { names: ['a.apk'], kib: 2048 },
        }),
        port: '1-1.3',
      },
    ],
    kernelLog: aioc122(),
    env: { DEVICE_AGENT_WEAR_TMP_MAX_MIB: '1', DEVICE_AGENT_WEAR_BASELINE_PACKAGES: 'io.appium.*' },
  }),
  b: new SimulatedHost({
    phones: [
      { serial: 'HOT00001', profile: smartron('HOT00001', 470), port: '2-1.1' },
      { serial: REFUSED, profile: smartron(REFUSED), port: '2-1.2' },
      { serial: 'LOCKED03', profile: smartron('LOCKED03'), mode: 'unauthorized' },
    ],
    // A network device that is off: its connect fails, a self-healing action.
    env: { DEVICE_AGENT_QUARANTINE_FAILURES: '1', DEVICE_AGENT_NETWORK_DEVICES: `127.0.0.1:${await freePort()}` },
  }),
  c: new SimulatedHost({
    phones: [
      { serial: 'FADE0001', profile: withWear(pixel('FADE0001'), { supplies: { bms: FADING_BMS } }) },
      { serial: 'PLAIN002', profile: smartron('PLAIN002') },
    ],
    state: { 'wear-history.json': wearHistory('FADE0001') },
    iPhones: true,
    root: older.root,
  }),
};
const prometheus = new PrometheusServer();
const taps = new Map<string, ScrapeTap>();
/** A target where nothing answers: a host whose agent is down. */
let down = '';

const metric = (text: string, name: string, labels: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

beforeAll(async () => {
  const b = hosts.b;
  await Promise.all(Object.values(hosts).map((h) => h.start()));
  down = `127.0.0.1:${await freePort()}`;
  for (const host of Object.values(hosts)) {
    const tap = new ScrapeTap(host.statusAddress);
    await tap.start();
    taps.set(tap.address, tap);
  }
  await prometheus.start({ targets: [...taps.keys(), down], ruleFiles: [RULES], intervalSeconds: SCRAPE_SECONDS });
  await eventually('each agent scraped twice', async () => {
    const scraped = await prometheus.query('count_over_time(up{job="device-agent"}[1m]) >= 2 and up == 1');
    return scraped.length === taps.size ? true : undefined;
  });
  // Under Prometheus's eyes: rack-b's cloud refuses a phone once it has stored it (a quarantine starts); rack-c's
  // iPhone reboots while go-ios keeps its tunnel.
  const c = hosts.c;
  const iphone = c.plugIPhone(IPHONE);
  await Promise.all([
    (async () => {
      await b.bed.cloud.waitForPut((r) => JSON.stringify(r.body ?? '').includes(REFUSED), 30_000);
      b.bed.cloud.failDevices([{ udid: REFUSED, message: 'device limit of the account reached' }]);
    })(),
    (async () => {
      await eventually('the iPhone live on rack-c', async () =>
        metric(await c.metricsText(), 'device_agent_ios_tunnel_devices', '{state="live"}') === 1 ? true : undefined,
      );
      await c.mux.reboot(iphone, { downMs: 1_000, image: 'mounted' });
    })(),
  ]);
  // Every fact the panels show, on the host that has it.
  await eventually(
    'the labs as described',
    async () => {
      const [a, bt, ct] = await Promise.all(Object.values(hosts).map((h) => h.metricsText()));
      const facts: Record<string, boolean> = {
        'rack-a: a phone not ready (stay awake)': metric(a!, 'device_agent_readiness_failing_devices', '{check="stayAwake"}') === 1,
        'rack-a: a phone worn (tmp)': metric(a!, 'device_agent_device_wear_days_left', '{udid="WORN0003",reason="tmp"}') === 0,
        'rack-b: a phone quarantined': metric(bt!, 'device_agent_quarantined_phones', '') === 1,
        'rack-b: a hot phone': metric(bt!, 'device_agent_device_problem', '{udid="HOT00001",problem="battery_hot"}') === 1,
        'rack-b: a failed connect': metric(bt!, 'device_agent_recovery_actions_total', '{action="connect",result="failed"}') !== undefined,
        'rack-c: a stale tunnel': metric(ct!, 'device_agent_ios_tunnel_devices', '{state="stale"}') === 1,
        'rack-c: wear due in days': (metric(ct!, 'device_agent_device_wear_days_left', '{udid="FADE0001",reason="battery_capacity"}') ?? 0) > 0,
      };
      const missing = Object.keys(facts).filter((k) => !facts[k]);
      if (missing.length > 0) throw new Error(`not yet: ${missing.join('; ')}`);
      return true;
    },
    60_000,
  );
  // Ten scrapes of each (rates over 10 s), every rule evaluated since.
  const settled = Date.now() + 10 * SCRAPE_SECONDS * 1000;
  await eventually(
    'ten scrapes and every rule evaluated',
    async () => {
      const rules = await prometheus.rules();
      const evaluated = rules.every((r) => r.health === 'ok');
      return Date.now() > settled && evaluated ? true : undefined;
    },
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await prometheus.stop();
  for (const tap of taps.values()) await tap.stop();
  await Promise.all(Object.values(hosts).map((h) => h.stop()));
  older.remove();
});

/** Each target's scrapes as Prometheus stamped them, with the text it read (from the tap), up to `at` (ms). */
async function scrapesUpTo(at: number): Promise<Map<string, Scrape[]>> {
  const out = new Map<string, Scrape[]>();
  for (const instance of [...taps.keys(), down]) {
    const up = (await prometheus.samples(`up{instance="${instance}"}[10m]`, at))[0]?.values ?? [];
    const sequence = new Map(((await prometheus.samples(`${SEQUENCE}{instance="${instance}"}[10m]`, at))[0]?.values ?? []).map(([ts, n]) => [ts, Number(n)]));
    out.set(
      instance,
      up.map(([ts, v]) => {
        if (v === '0') return { at: Math.round(ts * 1000), samples: undefined };
        const n = sequence.get(ts);
        const tapped = n === undefined ? undefined : taps.get(instance)?.scrapes.get(n);
        if (!tapped) throw new Error(`${instance}: no tapped text for the scrape at ${ts}`);
        return { at: Math.round(ts * 1000), samples: parseExposition(tapped.text) };
      }),
    );
  }
  return out;
}

/** When the tap sent each scrape Prometheus stamped at `at`, by instance and stamp: to tell what a rule evaluation could see. */
async function sentTimes(at: number): Promise<Map<string, Map<number, number>>> {
  const out = new Map<string, Map<number, number>>();
  for (const [instance, tap] of taps) {
    const sequence = (await prometheus.samples(`${SEQUENCE}{instance="${instance}"}[10m]`, at))[0]?.values ?? [];
    out.set(instance, new Map(sequence.map(([ts, n]) => [Math.round(ts * 1000), tap.scrapes.get(Number(n))!.sentAt])));
  }
  return out;
}

// What the rules and panels compute, written out over the scraped texts.

const ON = ['instance', 'job'];
const DEVICE = ['instance', 'job', 'udid'];
const times = (l: number, r: number): number => l * r;
const over = (l: number, r: number): number => l / r;

/** The version as the version rule reads it: YYMMDD.NNNN; another scheme none (NaN). */
function versionNumber(version: string): number {
  const v = parseVersion(version);
  return v ? (v.year * 100 + v.month) * 100 + v.day + v.build / 10_000 : NaN;
}

function versions(w: World): Series[] {
  return w.v('device_agent_build_info').map((s) => ({ labels: s.labels, value: versionNumber(s.labels.version!) }));
}

function newest(w: World): Series[] {
  return max(versions(w), ['job']);
}

function outOfDate(w: World): Series[] {
  return join(versions(w), newest(w), (l, r) => (l < r ? 1 : 0), ['job']);
}

function availability(w: World): Series[] {
  return sum(w.increase('device_agent_availability_seconds_total', 6 * 3600), ['instance', 'job', 'layer']);
}

/** A share out of service over 6 hours, by BY, of one of the per-port or per-hub counters: 0 for one never out. */
function outShare(w: World, name: string, by: string[]): Series[] {
  const increase = w.increase(name, 6 * 3600);
  const total = sum(increase, by);
  const out = or(
    sum(
      increase.filter((s) => s.labels.in_service === 'false'),
      by,
    ),
    map(total, (v) => 0 * v),
  );
  return join(out, total, over);
}

function wearDue(w: World): Series[] {
  return join(
    where(w.v('device_agent_device_wear_days_left'), (v) => v <= 30),
    w.v('device_agent_device_info'),
    times,
    DEVICE,
    ['model', 'serial', 'usb', 'hub', 'hub_port'],
  );
}

const withModel = (w: World, name: string, copy = ['model', 'usb']): Series[] => join(w.v(name), w.v('device_agent_device_info'), times, DEVICE, copy);

const agentOnly = (w: World, xs: Series[]): Series[] => and(xs, w.v('device_agent_info'), ON);

/** Each panel query's answer, by "PANEL REFID". */
const PANELS: Record<string, (w: World) => Series[]> = {
  'Hosts down A': (w) => orZero(count(where(w.up(), (v) => v === 0))),
  'Hosts out of date A': (w) => orZero(sum(outOfDate(w))),
  'In service (6h) A': (w) => join(sum(availability(w).filter((s) => s.labels.layer === 'none')), sum(availability(w)), over),
  'Phones not ready A': (w) => orZero(sum(w.v('device_agent_readiness_devices', { verdict: 'not_ready' }))),
  'Quarantined now A': (w) => orZero(sum(w.v('device_agent_quarantined_phones'))),
  'Phones with wear due A': (w) => orZero(count(count(wearDue(w), DEVICE))),
  'Stale iPhone tunnels A': (w) => orZero(sum(w.v('device_agent_ios_tunnel_devices', { state: 'stale' }))),
  'Hosts down or out of date A': (w) => where(w.up(), (v) => v === 0),
  'Hosts down or out of date B': (w) => where(outOfDate(w), (v) => v === 1),
  'In service by host (6h) A': (w) =>
    join(
      sum(
        availability(w).filter((s) => s.labels.layer === 'none'),
        ['instance'],
      ),
      sum(availability(w), ['instance']),
      over,
    ),
  'Out of service by blamed layer (6h) A': (w) =>
    join(
      sum(
        availability(w).filter((s) => s.labels.layer !== 'none'),
        ['layer'],
      ),
      sum(availability(w)),
      over,
      [],
    ),
  'Phones by readiness A': (w) => sum(w.v('device_agent_readiness_devices'), ['verdict']),
  'Worst USB ports (6h) A': (w) => topk(10, outShare(w, 'device_agent_port_availability_seconds_total', ['instance', 'job', 'hub', 'port'])),
  'Worst USB hubs (6h) A': (w) => topk(10, outShare(w, 'device_agent_hub_availability_seconds_total', ['instance', 'job', 'hub'])),
  'Wear due in 30 days A': wearDue,
  'Quarantines A': (w) => sum(w.v('device_agent_quarantined_phones'), ['instance']),
  'Quarantines B': (w) => sum(sum(w.increase('device_agent_quarantines_total', 86_400), ['instance', 'job', 'layer']), ['layer']),
  'Stale iPhone tunnels by host A': (w) => where(w.v('device_agent_ios_tunnel_devices', { state: 'stale' }), (v) => v > 0),
  'Agent versions A': (w) => count(w.v('device_agent_build_info'), ['version']),
  'Agents A': (w) => count(w.v('device_agent_info')),
  'Devices adb lists A': (w) => sum(w.v('device_agent_devices')),
  'Not answering A': (w) => orZero(count(where(w.v('device_agent_device_up'), (v) => v === 0))),
  'With a problem A': (w) => orZero(count(count(w.v('device_agent_device_problem'), DEVICE))),
  'Refused by the cloud A': (w) => orZero(count(w.v('device_agent_failed_device'))),
  'adb tracking down A': (w) => orZero(count(where(w.v('device_agent_adb_tracker_up'), (v) => v === 0))),
  'Since the last delivered report A': (w) => map(w.v('device_agent_last_success_timestamp_seconds'), (v) => w.time - v),
  'Reports per minute A': (w) => map(sum(w.rate('device_agent_reports_total', RATE), ['instance', 'result']), (v) => v * 60),
  'Devices by adb state A': (w) => sum(w.v('device_agent_devices'), ['instance', 'state']),
  'Self-healing actions A': (w) => sum(w.increase('device_agent_recovery_actions_total', RATE), ['instance', 'action', 'result']),
  'adb and inventory timings A': (w) => w.v('device_agent_adb_roundtrip_seconds'),
  'adb and inventory timings B': (w) => w.v('device_agent_inventory_duration_seconds'),
  'Shell work A': (w) => w.rate('device_agent_shell_sessions_total', RATE),
  'Shell work B': (w) => w.rate('device_agent_shell_bytes_read_total', RATE),
  'Agent memory A': (w) => agentOnly(w, w.v('process_resident_memory_bytes')),
  'Agent memory B': (w) => agentOnly(w, w.v('nodejs_heap_size_used_bytes')),
  'Agent CPU and descriptors A': (w) => agentOnly(w, w.rate('process_cpu_seconds_total', RATE)),
  'Agent CPU and descriptors B': (w) => agentOnly(w, w.v('process_open_fds')),
  'Every device A': (w) => w.v('device_agent_device_info'),
  'Every device B': (w) => w.v('device_agent_device_up'),
  'Every device C': (w) => w.v('device_agent_device_battery_level_percent'),
  'Every device D': (w) => w.v('device_agent_device_battery_temperature_celsius'),
  'Every device E': (w) => w.v('device_agent_device_battery_charging'),
  'Every device F': (w) => w.v('device_agent_device_storage_free_bytes'),
  'Every device G': (w) => w.v('device_agent_device_memory_available_bytes'),
  'Every device H': (w) => map(w.v('device_agent_device_last_inventory_timestamp_seconds'), (v) => w.time - v),
  'Every device I': (w) => w.v('device_agent_device_state'),
  'Hottest batteries A': (w) => topk(10, withModel(w, 'device_agent_device_battery_temperature_celsius')),
  'Lowest batteries A': (w) => topk(10, withModel(w, 'device_agent_device_battery_level_percent'), true),
  'Problems A': (w) => sum(w.v('device_agent_device_problem'), ['problem']),
  'Least free storage A': (w) => topk(10, withModel(w, 'device_agent_device_storage_free_bytes'), true),
  'Devices with a problem A': (w) => withModel(w, 'device_agent_device_problem', ['model', 'usb', 'serial']),
  'Devices refused by the cloud A': (w) => w.v('device_agent_failed_device'),
  'Stale inventories A': (w) =>
    where(
      map(w.v('device_agent_device_last_inventory_timestamp_seconds'), (v) => w.time - v),
      (v) => v > 600,
    ),
  'USB verdicts standing A': (w) => sum(w.v('device_agent_usb_verdicts'), ['instance', 'layer']),
  'USB port failures A': (w) => topk(10, sum(w.increase('device_agent_usb_port_failures_total', RATE), ['instance', 'port'])),
  'Phones on a port, off their list A': (w) => sum(w.v('device_agent_usb_off_list_devices'), ['instance', 'source', 'mode']),
  'Phones not ready, by check A': (w) => sum(w.v('device_agent_readiness_failing_devices'), ['check']),
};

/** Each recording rule's series, by its name. */
const RECORDED: Record<string, (w: World) => Series[]> = {
  'instance:device_agent_devices:sum': (w) =>
    or(
      sum(w.v('device_agent_devices'), ON),
      map(w.v('device_agent_last_success_timestamp_seconds'), (v) => 0 * v),
    ),
  'udid:device_agent_device_shell_unresponsive:bool': (w) =>
    or(
      max(w.v('device_agent_device_problem', { problem: 'shell_unresponsive' }), DEVICE),
      map(w.v('device_agent_device_up'), (v) => 0 * v),
    ),
  'instance:device_agent_out_of_service:ratio6h': (w) => {
    const increase = w.increase('device_agent_availability_seconds_total', 6 * 3600);
    return join(
      sum(
        increase.filter((s) => s.labels.state !== 'in_service'),
        ON,
      ),
      sum(increase, ON),
      over,
    );
  },
  'port:device_agent_out_of_service:ratio6h': (w) => outShare(w, 'device_agent_port_availability_seconds_total', ['instance', 'job', 'hub', 'port']),
  'instance_layer:device_agent_availability_seconds:increase6h': availability,
  'hub:device_agent_out_of_service:ratio6h': (w) => outShare(w, 'device_agent_hub_availability_seconds_total', ['instance', 'job', 'hub']),
  'instance_layer:device_agent_quarantines:increase1d': (w) => sum(w.increase('device_agent_quarantines_total', 86_400), ['instance', 'job', 'layer']),
  'udid:device_agent_device_wear_days_left:le30': wearDue,
  'instance:device_agent_build_version:number': versions,
  'job:device_agent_build_version:max': newest,
  'instance:device_agent_out_of_date:bool': outOfDate,
};

/** Samples as "labels = value", the metric name aside, sorted: what a query answered or must answer. */
function canonical(xs: Array<{ labels: Labels; value: number }>): Array<[string, number]> {
  return xs
    .map((x): [string, number] => {
      const { __name__: _name, ...labels } = x.labels;
      return [keyOf(labels), x.value];
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Differences between what Prometheus answered and what the texts imply; none when they agree. */
function differences(got: Array<{ labels: Labels; value: number }>, want: Series[]): string[] {
  const g = canonical(got);
  const e = canonical(want);
  const out: string[] = [];
  const keys = new Set([...g.map(([k]) => k), ...e.map(([k]) => k)]);
  for (const k of keys) {
    const a = g.find(([x]) => x === k)?.[1];
    const b = e.find(([x]) => x === k)?.[1];
    const same = a !== undefined && b !== undefined && ((Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));
    if (!same) out.push(`${k}: Prometheus ${a ?? 'none'}, the texts ${b ?? 'none'}`);
  }
  return out;
}

const answer = (samples: Array<{ metric: Labels; value: [number, string] }>): Array<{ labels: Labels; value: number }> =>
  samples.map((s) => ({ labels: s.metric, value: Number(s.value[1]) }));

/**
 * What `expr` answers at `t` against what `compute` makes of the scraped texts; none when they agree. A query of raw
 * series is computed at t; one of recorded series (a name with a colon) at the evaluation of their rule that t reads:
 * a scrape stamped before that evaluation but sent less than a second before it may or may not have been stored in
 * time, and either is what the texts imply.
 */
async function judge(
  expr: string,
  compute: (w: World) => Series[],
  t: number,
  scrapes: Map<string, Scrape[]>,
  sent: Map<string, Map<number, number>>,
): Promise<string[]> {
  const got = answer(await prometheus.query(expr, t));
  const recorded = [...new Set(selectors(expr).flatMap((s) => (s.name?.includes(':') ? [s.name] : [])))];
  if (recorded.length === 0) return differences(got, compute(new World(scrapes, t)));
  const stamps = new Set<string>();
  for (const name of recorded) {
    const stamp = (await prometheus.query(`timestamp(${name})`, t))[0]?.value[1];
    if (stamp === undefined) return [`${name}: nothing recorded before ${t}`];
    stamps.add(stamp);
  }
  if (stamps.size > 1) throw new Error(`${expr}: reads rules of several groups (${[...stamps].join(', ')})`);
  const at = Number([...stamps][0]) * 1000;
  const unsure = [...sent].flatMap(([instance, byStamp]) =>
    [...byStamp].filter(([stamp, sentAt]) => stamp <= at && sentAt + 1000 >= at).map(([stamp]) => ({ instance, stamp })),
  );
  let first: string[] | undefined;
  for (let mask = 0; mask < 2 ** unsure.length; mask++) {
    const late = unsure.filter((_, i) => mask & (1 << i));
    const stored = new Map(
      [...scrapes].map(([instance, list]) => [instance, list.filter((s) => !late.some((u) => u.instance === instance && u.stamp === s.at))]),
    );
    const d = differences(got, compute(new World(stored, at))).map((x) => `(evaluated at ${at}) ${x}`);
    if (d.length === 0) return [];
    first ??= d;
  }
  return first!;
}

/** The scraped texts and when each was sent, up to now, and an instant all of whose scrapes Prometheus has stored. */
async function snapshot(): Promise<{ t: number; scrapes: Map<string, Scrape[]>; sent: Map<string, Map<number, number>> }> {
  const now = Date.now();
  // A scrape ends within its timeout (the interval): one stamped two intervals ago is stored.
  return { t: now - 2 * SCRAPE_SECONDS * 1000, scrapes: await scrapesUpTo(now), sent: await sentTimes(now) };
}

describe('the dashboard and the recording rules, on a real Prometheus scraping three agents', () => {
  it('every panel query answers what the agents served', async () => {
    const { t, scrapes, sent } = await snapshot();
    const queries = panelQueries(dashboard());
    expect(queries.map((q) => `${q.panel} ${q.refId}`).sort()).toEqual(Object.keys(PANELS).sort());
    const wrong: string[] = [];
    for (const q of queries)
      for (const d of await judge(expand(q.expr, `${RATE}s`), PANELS[`${q.panel} ${q.refId}`]!, t, scrapes, sent)) wrong.push(`${q.panel} ${q.refId}: ${d}`);
    expect(wrong).toEqual([]);
    // The labs are what the panels are read on: each panel of the Lab row has something to show.
    const w = new World(scrapes, t);
    const value = (key: string): number[] => PANELS[key]!(w).map((s) => s.value);
    expect(value('Hosts down A')).toEqual([1]);
    expect(value('Hosts out of date A')).toEqual([1]);
    expect(PANELS['Hosts down or out of date B']!(w).map((s) => s.labels.version)).toEqual([OLD_VERSION]);
    expect(value('Quarantined now A')).toEqual([1]);
    expect(value('Stale iPhone tunnels A')).toEqual([1]);
    expect(
      wearDue(w)
        .map((s) => `${s.labels.udid} ${s.labels.reason}`)
        .sort(),
    ).toEqual(expect.arrayContaining(['FADE0001 battery_capacity', 'WORN0003 tmp']));
    expect(PANELS['Phones not ready, by check A']!(w).find((s) => s.labels.check === 'stayAwake')?.value).toBe(1);
    expect(new Set(PANELS['In service by host (6h) A']!(w).map((s) => s.value)).size, 'three hosts, three shares').toBe(3);
    expect(PANELS['Out of service by blamed layer (6h) A']!(w).length).toBeGreaterThan(1);
    expect(PANELS['Worst USB ports (6h) A']!(w).map((s) => s.labels.port)).toEqual(expect.arrayContaining(['1-1.1', '1-1.2', '2-1.1', '2-1.2']));
    expect(PANELS['Worst USB hubs (6h) A']!(w).map((s) => s.labels.hub)).toEqual(expect.arrayContaining(['1-1', '2-1']));
    // Every layer's counter is served from 0 from the agent's start (src/stats/counter.ts), so increase() counts a
    // layer's first quarantine.
    const quarantines = PANELS['Quarantines B']!(w);
    expect(quarantines.map((s) => s.labels.layer).sort()).toEqual(['cloud', 'phone', 'port', 'readiness']);
    expect(quarantines.find((s) => s.labels.layer === 'cloud')!.value).toBeGreaterThan(0);
  }, 60_000);

  it('every recording rule holds what the agents served, as Prometheus recorded it and as its expression answers', async () => {
    const rules = await prometheus.rules();
    const file = readFileSync(RULES, 'utf8');
    expect(rules.length).toBe(file.match(/^\s*- (alert|record): /gm)!.length);
    for (const r of rules) expect({ rule: r.name, health: r.health, lastError: r.lastError ?? '' }).toEqual({ rule: r.name, health: 'ok', lastError: '' });
    const recording = rules.filter((r) => r.type === 'recording');
    expect(recording.map((r) => r.name).sort()).toEqual(Object.keys(RECORDED).sort());
    const { t, scrapes, sent } = await snapshot();
    const wrong: string[] = [];
    for (const r of recording) {
      for (const d of await judge(r.name, RECORDED[r.name]!, t, scrapes, sent)) wrong.push(`${r.name} as recorded: ${d}`);
      for (const d of await judge(r.query, RECORDED[r.name]!, t, scrapes, sent)) wrong.push(`${r.name}'s expression: ${d}`);
    }
    expect(wrong).toEqual([]);
    // The lab gives each rule something to hold.
    const w = new World(scrapes, t);
    for (const name of Object.keys(RECORDED)) expect(RECORDED[name]!(w).length, name).toBeGreaterThan(0);
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(newest(w).map((s) => s.value)).toEqual([versionNumber(version)]);
  }, 60_000);

  it('name only series the agents serve, with labels and label values they serve', async () => {
    const texts = await Promise.all(Object.values(hosts).map((h) => h.metricsText()));
    const families = servedFamilies(texts.join('\n'));
    const rules: Rule[] = await prometheus.rules();
    const recordedLabels = new Map<string, Set<string>>();
    for (const r of rules.filter((x) => x.type === 'recording'))
      recordedLabels.set(r.name, new Set((await prometheus.query(r.name)).flatMap((s) => Object.keys(s.metric))));
    const d = dashboard();
    const queries: Array<{ where: string; expr: string }> = [
      ...rules.map((r) => ({ where: `rule ${r.name}`, expr: r.query })),
      ...rules.flatMap((r) =>
        Object.entries(r.annotations ?? {}).flatMap(([k, v]) => templateQueries(v).map((expr) => ({ where: `rule ${r.name} annotation ${k}`, expr }))),
      ),
      ...panelQueries(d).map((q) => ({ where: `panel "${q.panel}" ${q.refId}`, expr: expand(q.expr) })),
      ...variableQueries(d).map((v) => ({ where: `variable ${v.variable}`, expr: `${v.metric}{${v.label}!=""}` })),
    ];
    const wrong: string[] = [];
    const check = (where: string, s: Selector): void => {
      if (s.name === undefined) return void wrong.push(`${where}: a selector without a metric name`);
      // `up` is the one series Prometheus itself adds to every target it scrapes: read for the agents' job only.
      if (s.name === 'up') {
        if (!s.matchers.some((m) => m.label === 'job' && m.op === '=' && m.value === 'device-agent')) wrong.push(`${where}: up without job="device-agent"`);
        return;
      }
      const labels = families.get(s.name) ?? recordedLabels.get(s.name);
      if (!labels) return void wrong.push(`${where}: ${s.name} is not served by the agents`);
      for (const m of s.matchers) {
        // Prometheus adds instance and job to every series it scrapes.
        if (m.label === 'instance' || m.label === 'job') continue;
        if (!labels.has(m.label)) {
          wrong.push(`${where}: ${s.name} has no label ${m.label}`);
          continue;
        }
        if (m.op !== '=' || m.value === '' || !(labels instanceof Map)) continue;
        // Problems come and go: their names are the agent's list; other values are seen live.
        const known = m.label === 'problem' ? new Set<string>(PROBLEMS) : labels.get(m.label)!;
        if (!known.has(m.value)) wrong.push(`${where}: ${s.name}{${m.label}="${m.value}"} is not a value the agents serve (${[...known].join(', ')})`);
      }
    };
    for (const q of queries) for (const s of selectors(q.expr)) check(q.where, s);
    expect(wrong).toEqual([]);
  });
});
