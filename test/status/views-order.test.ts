import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildParts } from '../../src/agent/build.js';
import { PROTECTION } from '../../src/features/samsung/state.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { loadSettings } from '../../src/config/load.js';
import { columnsOf } from '../../src/devices/feature.js';
import { facetKey } from '../../src/devices/facet.js';
import { BATTERY } from '../../src/features/health/monitor.js';
import { ChargePauses } from '../../src/features/charge/pauses.js';
import { formatTable } from '../../src/cli/table.js';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import { deviceRows } from '../../src/status/device-rows.js';
import { captureLogger } from '../log/capture.js';

// What the features add to the views (src/agent/features.ts, as the daemon
// and `list` build them) sits where it sat when the views named each
// feature: `list --json`'s keys, the table's columns and the /metrics series
// keep their order, which scripts and dashboards read.

const PHONE: DeviceInfo = {
  udid: 'SAM1',
  serialNumber: 'SAM1',
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  modelName: 'SM-S911B',
  platformVersion: '14',
  battery: { status: 'FULL', health: 'OVERHEAT', percentage: '100', temperature: 41 },
  storage: { total: 100e9, used: 40e9 },
  memory: { total: 8e9, used: 3e9 },
  message: 'a message',
};

/** One phone with every field a feature adds: the samsung way, a pause its port still holds from before, health's figures and problems. */
function lab() {
  const env = {
    DEVICE_AGENT_STATE_DIR: mkdtempSync(join(tmpdir(), 'views-order-')),
    DEVICE_AGENT_CHARGE_WAYS: 'SAM1=samsung',
    DEVICE_AGENT_HUB_PORTS: 'SAM1=1-1:2',
  };
  const parts = buildParts(loadSettings({ env }), env, captureLogger().logger, { nodeId: 'views-order' });
  const { registry } = parts;
  registry.sync('android', new Map([['SAM1', 'device']]));
  registry.readings.identify('android/SAM1', 'SAM1');
  registry.setUsb('android', new Map([['SAM1', { usb: '1-1.2', transportId: '3', product: 'a54' }]]));
  registry.readings.answered('android/SAM1', PHONE, 1_750_000_000_000, 1_000);
  registry.facet(BATTERY).set('android/SAM1', { signals: { heldFullSeconds: 7_200, chargerMillivolts: 9_000 } });
  registry.facet(facetKey<unknown>('wear', 'device')).set('android/SAM1', {
    history: [],
    figures: { cycles: 300, health: 90 },
    facts: { batterySource: 'samsung' },
    unread: [],
    findings: [{ reason: 'battery_cycles', days: 12, message: 'battery at 780 full cycles' }],
  });
  registry.facet(facetKey<string[]>('health-problems', 'record')).set('android/SAM1', ['battery_hot']);
  registry.facet(PROTECTION).set('android/SAM1', { failures: 0, state: 'on' });
  new ChargePauses(registry, 'android').set('SAM1', {
    failures: 0,
    pause: { udid: 'SAM1', serial: 'SAM1', way: 'uhubctl', hub: '1-1', port: 2, percent: 90, since: 0, sinceWall: 0, until: 1, untilWall: 1 },
  });
  const rows = deviceRows([PHONE], registry, {
    names: parts.names,
    mapping: { look: parts.mapping, platform: parts.control.platform },
    features: parts.features,
  });
  return { parts, rows };
}

describe('the views with the registered features', () => {
  it('list --json: the keys in the order they always had', () => {
    const { rows } = lab();
    expect(Object.keys(rows[0]!)).toEqual([
      'udid',
      'serial',
      'state',
      'status',
      'platform',
      'model',
      'version',
      'batteryPercent',
      'batteryCelsius',
      'charging',
      'batteryHealth',
      'batteryFullSeconds',
      'chargerMillivolts',
      'batteryCycles',
      'batteryHealthPercent',
      'wear',
      'storageFreeBytes',
      'memoryAvailableBytes',
      'usb',
      'hub',
      'hubPort',
      'transportId',
      'product',
      'chargeWay',
      'chargeState',
      'chargePausedUntil',
      'up',
      'problems',
      'message',
      'inventoriedAt',
      // The features' cells (here the USB layer's port), last.
      'features',
    ]);
  });

  it("list's table: the columns in the order they always had", () => {
    const { parts, rows } = lab();
    const header = formatTable([{ ...rows[0]!, udid: 'OTHER' }], undefined, columnsOf(parts.features)).split('\n')[0]!;
    expect(header.split(/\s{2,}/)).toEqual([
      'SERIAL',
      'UDID',
      'STATE',
      'MODEL',
      'OS',
      'BATTERY',
      'TEMP',
      'CHARGING',
      'HEALTH',
      'CAPACITY',
      'CYCLES',
      'WEAR',
      'FREE',
      // With the USB layer's port cell inside it, and the hub port the settings map.
      'USB',
      'CHARGE',
      // Readiness's cell column, there with the shipped checks though the phone is not read yet (issue 61).
      'READY',
      // Health's PROBLEMS closes the table.
      'PROBLEMS',
    ]);
  });

  it('/metrics: the per-device series in the order they always had', () => {
    const { parts, rows } = lab();
    expect(deviceMetrics(rows, parts.features).map((m) => m.name)).toEqual([
      'device_agent_device_info',
      'device_agent_device_state',
      'device_agent_device_service_state',
      'device_agent_device_up',
      'device_agent_device_battery_level_percent',
      'device_agent_device_battery_temperature_celsius',
      'device_agent_device_battery_charging',
      'device_agent_device_battery_full_seconds',
      'device_agent_device_charger_voltage_volts',
      'device_agent_device_battery_cycles',
      'device_agent_device_battery_health_percent',
      'device_agent_device_wear_days_left',
      'device_agent_device_storage_life_used_percent',
      'device_agent_device_app_id_max',
      'device_agent_device_leftover_packages',
      'device_agent_device_tmp_bytes',
      'device_agent_device_charge_paused',
      'device_agent_device_storage_free_bytes',
      'device_agent_device_memory_available_bytes',
      'device_agent_device_last_inventory_timestamp_seconds',
      'device_agent_device_battery_protection',
      'device_agent_device_problem',
      'device_agent_device_ios_tunnel',
    ]);
  });
});
