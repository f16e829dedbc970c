import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/features/health/rules.js';
import { freePort } from '../sim/adb-server.js';
import { dashboard, expand, panelQueries, variableQueries } from './dashboard.js';
import { MonitoredLab } from './lab.js';
import { eventually, type Rule } from './prometheus-server.js';
import { selectors, templateQueries, type Selector } from './promql-selectors.js';

// Every query of the rules and of the dashboard, against a running agent:
// the series and labels they name are ones the agent's live /metrics serves
// (a misspelt name would make an alert that never fires, or an empty
// panel), and each runs on a real Prometheus scraping that agent and gives
// what it says. The lab has a phone at 47 °C (a health problem), one the
// cloud refuses, one nobody authorized (over TCP adb cannot say who it is,
// so adb counts it and reports leave it out), and a network device that is
// off (its connect fails: a self-healing action).

const RULES = fileURLToPath(new URL('../../deploy/monitoring/device-agent.rules.yml', import.meta.url));
const HOT = 'HOT0001';
const REFUSED = 'REFUSED02';
const lab = new MonitoredLab();
let metricsText = '';
let rules: Rule[] = [];

/** Each metric family the agent serves (its # TYPE line), with the label names and values of its samples. */
/** Families this lab serves with no sample: no phone of it is on a USB port. */
const NO_SAMPLE_HERE = new Set(['device_agent_port_availability_seconds_total', 'device_agent_hub_availability_seconds_total']);

function served(text: string): Map<string, Map<string, Set<string>>> {
  const families = new Map<string, Map<string, Set<string>>>();
  for (const m of text.matchAll(/^# TYPE (\S+) \S+$/gm)) families.set(m[1]!, new Map());
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!m) continue;
    // A histogram's samples (prom-client's nodejs_gc_duration_seconds) are its _bucket, _sum and _count.
    const labels = families.get(m[1]!) ?? families.get(m[1]!.replace(/_(bucket|sum|count)$/, ''));
    if (!labels) throw new Error(`sample of a family without # TYPE: ${line}`);
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      if (!labels.has(l[1]!)) labels.set(l[1]!, new Set());
      labels.get(l[1]!)!.add(l[2]!);
    }
  }
  return families;
}

/**
 * The USB layer's inputs, whatever the machine's own: aioc-122's kernel log
 * (enumeration failures on port 2-3) as /dev/kmsg records, and a sysfs
 * tree with no phone on a port.
 */
function usbInputs(): { kernelLog: string; sysfs: string } {
  const dir = mkdtempSync(join(tmpdir(), 'da-monitoring-usb-'));
  const dmesg = readFileSync(fileURLToPath(new URL('../features/usb/fixtures/aioc-122.dmesg', import.meta.url)), 'utf8');
  const records = dmesg
    .split('\n')
    .filter((l) => l.includes('] '))
    .map((l, i) => `3,${i + 1},${(i + 1) * 1000},-;${l.slice(l.indexOf('] ') + 2)}`);
  writeFileSync(join(dir, 'kmsg'), records.join('\n') + '\n');
  mkdirSync(join(dir, 'sysfs'));
  return { kernelLog: join(dir, 'kmsg'), sysfs: join(dir, 'sysfs') };
}

beforeAll(async () => {
  lab.bed.cloud.failDevices([{ udid: REFUSED, message: 'device limit of the account reached' }]);
  const off = `127.0.0.1:${await freePort()}`;
  const usb = usbInputs();
  await lab.start([{ serial: HOT, tenths: 470 }, { serial: REFUSED }, { serial: 'LOCKED03', mode: 'unauthorized' }], [RULES], {
    DEVICE_AGENT_NETWORK_DEVICES: off,
    DEVICE_AGENT_USB_KERNEL_LOG: usb.kernelLog,
    DEVICE_AGENT_USB_SYSFS_ROOT: usb.sysfs,
  });
  metricsText = await eventually('a report with the hot phone, the refused one and the locked one in /metrics', async () => {
    const text = await lab.metricsText();
    const ready =
      text.includes(`device_agent_device_problem{udid="${HOT}",problem="battery_hot"} 1`) &&
      text.includes(`device_agent_failed_device{udid="${REFUSED}"} 1`) &&
      text.includes('device_agent_devices{state="unauthorized"} 1') &&
      text.includes('device_agent_recovery_actions_total{action="connect",result="failed"}') &&
      text.includes('device_agent_availability_seconds_total{');
    return ready ? text : undefined;
  });
  // Enough scrapes for rates over 10 s, and every rule evaluated at least once.
  await eventually('rates and rule evaluations in Prometheus', async () => {
    const rate = await lab.prometheus.query('rate(device_agent_reports_total[10s])');
    const loaded = await lab.prometheus.rules();
    return rate.length > 0 && loaded.every((r) => r.health === 'ok') ? (rules = loaded) : undefined;
  });
}, 60_000);

afterAll(() => lab.stop());

describe('the queries of the rules and the dashboard, against a live agent', () => {
  it('name only series the agent serves, with labels and label values it serves', async () => {
    const families = served(metricsText);
    expect(families.size).toBeGreaterThan(20);
    const recorded = new Set(rules.filter((r) => r.type === 'recording').map((r) => r.name));
    const d = dashboard();
    const queries: Array<{ where: string; expr: string }> = [
      ...rules.map((r) => ({ where: `rule ${r.name}`, expr: r.query })),
      ...rules.flatMap((r) =>
        Object.entries(r.annotations ?? {}).flatMap(([k, v]) => templateQueries(v).map((expr) => ({ where: `rule ${r.name} annotation ${k}`, expr }))),
      ),
      ...panelQueries(d).map((q) => ({ where: `panel "${q.panel}" ${q.refId}`, expr: expand(q.expr) })),
      ...variableQueries(d).map((v) => ({ where: `variable ${v.variable}`, expr: `${v.metric}{${v.label}!=""}` })),
    ];
    expect(queries.length).toBeGreaterThan(40);
    // Labels of the recorded series, as Prometheus has them from this agent.
    const recordedLabels = new Map<string, Set<string>>();
    for (const name of recorded) recordedLabels.set(name, new Set((await lab.prometheus.query(name)).flatMap((s) => Object.keys(s.metric))));

    const wrong: string[] = [];
    const check = (where: string, s: Selector): void => {
      if (s.name === undefined) return void wrong.push(`${where}: a selector without a metric name`);
      // `up` is the one series Prometheus itself adds to every target it scrapes (DeviceAgentDown).
      if (s.name === 'up') {
        if (JSON.stringify(s.matchers) !== JSON.stringify([{ label: 'job', op: '=', value: 'device-agent' }]))
          wrong.push(`${where}: up{${JSON.stringify(s.matchers)}}`);
        return;
      }
      const labels = families.get(s.name) ?? recordedLabels.get(s.name);
      if (!labels) return void wrong.push(`${where}: ${s.name} is not served by the agent`);
      // Served without a sample here, its labels unseen: only the families of USB ports and hubs, which no phone of
      // this lab is on (their labels are test/features/availability's).
      if (labels.size === 0 && NO_SAMPLE_HERE.has(s.name)) return;
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
        if (!known.has(m.value)) wrong.push(`${where}: ${s.name}{${m.label}="${m.value}"} is not a value the agent serves (${[...known].join(', ')})`);
      }
    };
    for (const q of queries) for (const s of selectors(q.expr)) check(q.where, s);
    expect(wrong).toEqual([]);
  });

  it('every rule evaluates on live data without error, and the recording rules hold what they say', async () => {
    // Every rule of the file is loaded (a rule Prometheus drops would not be evaluated at all).
    const file = readFileSync(fileURLToPath(new URL('../../deploy/monitoring/device-agent.rules.yml', import.meta.url)), 'utf8');
    expect(rules.length).toBe(file.match(/^\s*- (alert|record): /gm)!.length);
    for (const r of rules) expect({ rule: r.name, health: r.health, lastError: r.lastError ?? '' }).toEqual({ rule: r.name, health: 'ok', lastError: '' });
    // adb lists three devices in any state; up{job="device-agent"} is this agent.
    const devices = await lab.prometheus.query('instance:device_agent_devices:sum');
    expect(devices.map((s) => [s.metric.instance, s.value[1]])).toEqual([[lab.statusAddress, '3']]);
    expect((await lab.prometheus.query('up{job="device-agent"}')).map((s) => s.value[1])).toEqual(['1']);
    const shells = await lab.prometheus.query('udid:device_agent_device_shell_unresponsive:bool');
    expect(shells.map((s) => [s.metric.udid, s.value[1]]).sort()).toEqual([
      [HOT, '0'],
      [REFUSED, '0'],
    ]);
  });

  it('every panel query runs on Prometheus, and the panels show this lab as it is', async () => {
    const d = dashboard();
    const results = new Map<string, Array<{ metric: Record<string, string>; value: string }>>();
    for (const q of panelQueries(d)) {
      const samples = await lab.prometheus.query(expand(q.expr));
      results.set(
        `${q.panel} ${q.refId}`,
        samples.map((s) => ({ metric: s.metric, value: s.value[1] })),
      );
    }
    // No inventory is stale; every other panel has data.
    const empty = [...results].filter(([, r]) => r.length === 0).map(([k]) => k);
    expect(empty).toEqual(['Stale inventories A']);
    const value = (key: string): string[] => results.get(key)!.map((s) => s.value);
    expect(value('Agents A')).toEqual(['1']);
    expect(value('Devices adb lists A')).toEqual(['3']);
    expect(value('Not answering A')).toEqual(['0']);
    expect(value('With a problem A')).toEqual(['1']); // the hot phone
    expect(value('Refused by the cloud A')).toEqual(['1']);
    expect(value('adb tracking down A')).toEqual(['0']);
    const hottest = results.get('Hottest batteries A')!;
    // Over TCP adb has no usb path: Prometheus keeps no empty label.
    expect(hottest[0]).toEqual({ metric: { instance: lab.statusAddress, job: 'device-agent', udid: HOT, model: 'T5911' }, value: '47' });
    expect(results.get('Problems A')).toEqual([{ metric: { problem: 'battery_hot' }, value: '1' }]);
    expect(results.get('Devices refused by the cloud A')!.map((s) => s.metric.udid)).toEqual([REFUSED]);
    expect(results.get('Devices with a problem A')!.map((s) => [s.metric.udid, s.metric.problem, s.metric.model])).toEqual([[HOT, 'battery_hot', 'T5911']]);
    // The USB row: a series for each layer a verdict may blame, the replayed log's port among the failing
    // ones, every source and mode of the phones off their list (none here), and each check of the baseline.
    expect(
      results
        .get('USB verdicts standing A')!
        .map((s) => s.metric.layer)
        .sort(),
    ).toEqual(['controller', 'hub', 'hub_power', 'phone', 'port']);
    expect(results.get('USB port failures A')!.map((s) => s.metric.port)).toContain('2-3');
    expect(
      results
        .get('Phones on a port, off their list A')!
        .map((s) => `${s.metric.source} ${s.metric.mode} ${s.value}`)
        .sort(),
    ).toEqual(['adb bootloader 0', 'adb offers_source 0', 'adb port 0', 'usbmuxd bootloader 0', 'usbmuxd offers_source 0', 'usbmuxd port 0']);
    expect(results.get('Phones not ready, by check A')!.map((s) => s.metric.check)).toEqual(
      expect.arrayContaining(['usbDebugging', 'stayAwake', 'screenLock']),
    );
    // The devices table: a row of each of its queries for each reported device.
    for (const ref of ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'])
      expect(
        results
          .get(`Every device ${ref}`)!
          .map((s) => s.metric.udid)
          .sort(),
        ref,
      ).toEqual([HOT, REFUSED]);
  });
});
