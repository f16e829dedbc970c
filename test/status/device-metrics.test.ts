import { describe, expect, it } from 'vitest';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import type { DeviceRow } from '../../src/status/device-rows.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { rowFeatures } from './row-features.js';

const row = (udid: string, over: Partial<DeviceRow> = {}): DeviceRow => ({
  udid,
  serial: udid,
  state: 'device',
  status: 'AVAILABLE',
  platform: 'Android',
  up: true,
  problems: [],
  ...over,
});
const features = rowFeatures(new DeviceRegistry());
const samples = (rows: DeviceRow[], name: string) => deviceMetrics(rows, features).find((m) => m.name === name)!.samples;

describe('deviceMetrics: battery wear', () => {
  it('the time held full, the charger in volts, cycles and state of health, each only where the phone has it', () => {
    const rows = [
      row('S25', { batteryFullSeconds: 93_600, batteryCycles: 619, batteryHealthPercent: 86 }),
      row('X1', { batteryFullSeconds: 0, chargerMillivolts: 11000 }),
      row('IOS'),
    ];
    expect(samples(rows, 'device_agent_device_battery_full_seconds')).toEqual([
      { labels: { udid: 'S25' }, value: 93_600 },
      { labels: { udid: 'X1' }, value: 0 },
    ]);
    expect(samples(rows, 'device_agent_device_charger_voltage_volts')).toEqual([{ labels: { udid: 'X1' }, value: 11 }]);
    expect(samples(rows, 'device_agent_device_battery_cycles')).toEqual([{ labels: { udid: 'S25' }, value: 619 }]);
    expect(samples(rows, 'device_agent_device_battery_health_percent')).toEqual([{ labels: { udid: 'S25' }, value: 86 }]);
  });

  it('the problem series names every problem a rule can raise', () => {
    const help = deviceMetrics([], features).find((m) => m.name === 'device_agent_device_problem')!.help;
    for (const p of ['battery_unhealthy', 'battery_held_full', 'charging_voltage_high']) expect(help).toContain(p);
    expect(help).not.toContain('battery_worn');
    expect(samples([row('S25', { problems: ['battery_held_full', 'storage_full'] })], 'device_agent_device_problem')).toEqual([
      { labels: { udid: 'S25', problem: 'battery_held_full' }, value: 1 },
      { labels: { udid: 'S25', problem: 'storage_full' }, value: 1 },
    ]);
  });
});

describe('device_agent_device_info: what a device is, not what it does now (issue 61)', () => {
  it('carries the OS version under os_version on every platform, and no label that a replug or a state change moves', () => {
    const rows = [row('A', { platform: 'Android', version: '14', transportId: '7' }), row('I', { platform: 'iOS', version: '17.5', state: 'paired' })];
    const labels = samples(rows, 'device_agent_device_info').map((s) => s.labels);
    expect(labels[0]).toMatchObject({ udid: 'A', platform: 'Android', os_version: '14' });
    expect(labels[1]).toMatchObject({ udid: 'I', platform: 'iOS', os_version: '17.5' });
    expect(Object.keys(labels[0]!)).toEqual(['udid', 'serial', 'model', 'platform', 'os_version', 'usb', 'hub', 'hub_port', 'product']);
  });

  it('the same phone unauthorized, then ready on a new transport, keeps one info series; its state is a series of its own', () => {
    const before = row('A', { state: 'unauthorized', transportId: '3', usb: '1-1.2', model: 'Pixel 8' });
    const after = row('A', { state: 'device', transportId: '9', usb: '1-1.2', model: 'Pixel 8' });
    expect(samples([after], 'device_agent_device_info')).toEqual(samples([before], 'device_agent_device_info'));
    expect(samples([before], 'device_agent_device_state')).toEqual([{ labels: { udid: 'A', state: 'unauthorized' }, value: 1 }]);
    expect(samples([after], 'device_agent_device_state')).toEqual([{ labels: { udid: 'A', state: 'device' }, value: 1 }]);
  });
});

describe('deviceMetrics: where a phone is plugged', () => {
  it('device_agent_device_info carries the hub and port the settings map, empty where they map none', () => {
    const labels = samples([row('A', { usb: '1-1.4.3', hub: '1-1.4', hubPort: 3 }), row('B')], 'device_agent_device_info').map((s) => s.labels);
    expect(labels[0]).toMatchObject({ udid: 'A', usb: '1-1.4.3', hub: '1-1.4', hub_port: '3' });
    expect(labels[1]).toMatchObject({ udid: 'B', usb: '', hub: '', hub_port: '' });
  });
});

describe('deviceMetrics: charge control', () => {
  it('1 while paused, 0 for a phone with a way and no pause, nothing for a phone without charge control', () => {
    const rows = [row('P', { chargeWay: 'uhubctl', chargePausedUntil: 1 }), row('C', { chargeWay: 'uhubctl' }), row('N')];
    expect(samples(rows, 'device_agent_device_charge_paused')).toEqual([
      { labels: { udid: 'P' }, value: 1 },
      { labels: { udid: 'C' }, value: 0 },
    ]);
  });

  it("the samsung way's state, labelled, only for phones with that way", () => {
    const rows = [row('S', { chargeWay: 'samsung', chargeState: 'not-taken' }), row('C', { chargeWay: 'uhubctl' }), row('N')];
    expect(samples(rows, 'device_agent_device_battery_protection')).toEqual([{ labels: { udid: 'S', state: 'not-taken' }, value: 1 }]);
  });
});
