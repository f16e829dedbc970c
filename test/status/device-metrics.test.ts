import { describe, expect, it } from 'vitest';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import type { DeviceRow } from '../../src/status/device-rows.js';
import type { PlatformName } from '../../src/platforms/source.js';
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
// Two platforms as the registration list names them: one with a version label, one without.
const names: PlatformName[] = [
  { platformName: 'A', shown: 'A-shown', versionLabel: 'alpha' },
  { platformName: 'B', shown: 'B-shown' },
];
const features = rowFeatures(new DeviceRegistry());
const samples = (rows: DeviceRow[], name: string) => deviceMetrics(rows, names, features).find((m) => m.name === name)!.samples;

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
    const help = deviceMetrics([], names, features).find((m) => m.name === 'device_agent_device_problem')!.help;
    for (const p of ['battery_unhealthy', 'battery_held_full', 'charging_voltage_high']) expect(help).toContain(p);
    expect(help).not.toContain('battery_worn');
    expect(samples([row('S25', { problems: ['battery_held_full', 'storage_full'] })], 'device_agent_device_problem')).toEqual([
      { labels: { udid: 'S25', problem: 'battery_held_full' }, value: 1 },
      { labels: { udid: 'S25', problem: 'storage_full' }, value: 1 },
    ]);
  });
});

describe('deviceMetrics: the version label a platform names', () => {
  it("device_agent_device_info carries each platform's version label, the version on its own devices and empty on the others", () => {
    const rows = [row('A', { platform: 'A-shown', version: '14', versionLabel: 'alpha' }), row('B', { platform: 'B-shown', version: '17.5' })];
    const labels = samples(rows, 'device_agent_device_info').map((s) => s.labels);
    expect(labels[0]).toMatchObject({ udid: 'A', platform: 'A-shown', alpha: '14' });
    expect(labels[1]).toMatchObject({ udid: 'B', platform: 'B-shown', alpha: '' });
    // The label sits where the platform's version always sat: right after platform.
    expect(Object.keys(labels[1]!).slice(3, 6)).toEqual(['platform', 'alpha', 'state']);
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
