import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoredLab } from './lab.js';
import { eventually, type Alert } from './prometheus-server.js';

// DeviceAgentBatteryHot end to end: a real Prometheus scrapes a running
// agent with two simulated phones; one phone gets hot, and the alert goes
// pending, then firing, through Prometheus's own API, and clears when the
// phone cools.
//
// Prometheus loads a copy of the rules whose `for:` durations are 2 s: the
// shipped 2 to 15 minutes would make this test take that long. Nothing else
// differs (checked below), so the copy still tests the expressions and
// annotations that ship, and with every alert's `for:` that short a healthy
// lab firing anything else shows up too.

const RULES = fileURLToPath(new URL('../../deploy/monitoring/device-agent.rules.yml', import.meta.url));
const shipped = readFileSync(RULES, 'utf8');
const FOR = /^(\s+for: )\S+$/gm;
const copy = shipped.replace(FOR, '$12s');
const dir = mkdtempSync(join(tmpdir(), 'da-rules-'));
const copyFile = join(dir, 'device-agent.rules.yml');

const lab = new MonitoredLab();
const HOT = 'HOT0001';
const COOL = 'COOL0002';

beforeAll(async () => {
  writeFileSync(copyFile, copy);
  await lab.start([{ serial: HOT }, { serial: COOL }], [copyFile]);
  // Both phones scraped, with their inventories.
  await eventually('both phones in Prometheus', async () => {
    const up = await lab.prometheus.query('device_agent_device_up == 1');
    return up.length === 2 ? up : undefined;
  });
}, 60_000);

afterAll(async () => {
  await lab.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ours = (alerts: Alert[]): Alert[] => alerts.filter((a) => a.labels.alertname?.startsWith('DeviceAgent'));

describe('DeviceAgentBatteryHot through a real Prometheus', () => {
  it('the test copy of the rules differs from the shipped rules only in its for: durations', () => {
    expect(copy).not.toBe(shipped);
    expect(copy.replace(FOR, '$1X')).toBe(shipped.replace(FOR, '$1X'));
  });

  it('a healthy lab fires nothing', async () => {
    // A few evaluations with every for: at 2 s.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(ours(await lab.prometheus.alerts())).toEqual([]);
  });

  it('a phone at 47 °C goes pending, then firing, with its temperature and where it is plugged', async () => {
    await lab.setTemperature(HOT, 470);
    const states = new Set<string>();
    const firing = await eventually('DeviceAgentBatteryHot firing', async () => {
      const hot = ours(await lab.prometheus.alerts()).filter((a) => a.labels.alertname === 'DeviceAgentBatteryHot');
      for (const a of hot) states.add(a.state);
      return hot.find((a) => a.state === 'firing');
    });
    // for: was honoured: the alert was pending first.
    expect(states).toContain('pending');
    const instance = lab.statusAddress;
    expect(firing.labels).toEqual({ alertname: 'DeviceAgentBatteryHot', instance, job: 'device-agent', udid: HOT, severity: 'critical' });
    expect(Number(firing.value)).toBe(47);
    expect(firing.annotations.summary).toBe(`Battery of device ${HOT} on ${instance} is at 47 °C`);
    // The model comes from device_agent_device_info through the template's query; over TCP there is no usb path.
    expect(firing.annotations.description).toBe(`Device ${HOT} (T5911) on ${instance} has had a hot battery for 2 minutes, 47 °C at its last inventory.`);
    expect(firing.annotations.runbook_url).toBe('docs/operations/alerts.md#deviceagentbatteryhot');
    // Nothing else fires, for the cool phone least of all.
    expect(ours(await lab.prometheus.alerts()).map((a) => `${a.labels.alertname} ${a.labels.udid}`)).toEqual([`DeviceAgentBatteryHot ${HOT}`]);
  }, 40_000);

  it('clears when the phone has cooled (at or below 42 °C, the agent hysteresis)', async () => {
    expect(ours(await lab.prometheus.alerts()).map((a) => `${a.labels.alertname} ${a.labels.udid} ${a.state}`)).toEqual([`DeviceAgentBatteryHot ${HOT} firing`]);
    await lab.setTemperature(HOT, 300);
    await eventually('the cool reading in Prometheus', async () => {
      const t = await lab.prometheus.query(`device_agent_device_battery_temperature_celsius{udid="${HOT}"}`);
      return t[0]?.value[1] === '30' ? true : undefined;
    });
    await eventually('DeviceAgentBatteryHot gone', async () => ((await lab.prometheus.alerts()).length === 0 ? true : undefined));
  }, 40_000);
});
