import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { BATTERY, type BatteryState } from '../../src/features/health/monitor.js';
import { deviceRows } from '../../src/status/device-rows.js';
import { chargeWaysOf } from '../../src/config/charge-ways.js';
import { ChargePauses } from '../../src/features/charge/pauses.js';
import { PROTECTION } from '../../src/features/samsung/state.js';
import { DeviceMapping } from '../../src/actions/device-mapping.js';
import type { ChargeWays } from '../../src/config/charge-ways.js';
import { captureLogger } from '../log/capture.js';
import { rowFeatures } from './row-features.js';

const info: DeviceInfo = {
  udid: 'R5CY743GDFY',
  serialNumber: 'R5CY743GDFY',
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  battery: { status: 'FULL', health: 'GOOD', percentage: '100', temperature: 31 },
};
/** The rows as the views build them, with the features that add to them and the actions' look-up of `ways`. */
function rows(infos: DeviceInfo[], reg: DeviceRegistry, ways: ChargeWays = []): ReturnType<typeof deviceRows> {
  const look = new DeviceMapping({ hubPorts: new Map(), chargeWays: ways, logger: captureLogger().logger });
  return deviceRows(infos, reg, { mapping: { look, platform: 'android' }, features: rowFeatures(reg, look) });
}
function registry(battery: BatteryState | undefined): DeviceRegistry {
  const reg = new DeviceRegistry();
  reg.sync('android', new Map([[info.udid, 'device']]));
  reg.readings.identify(`android/${info.udid}`, info.udid);
  if (battery) reg.facet(BATTERY).set(`android/${info.udid}`, battery);
  return reg;
}

describe('deviceRows: battery', () => {
  it("the health name from the report, the time held full from the device's record (its wear figures are wear's: test/features/wear/)", () => {
    const [row] = rows([info], registry({ signals: { heldFullSeconds: 93_600 } }));
    expect(row).toMatchObject({ batteryHealth: 'GOOD', batteryFullSeconds: 93_600 });
    expect(row).not.toHaveProperty('chargerMillivolts');
  });

  it('no figures where the record has none', () => {
    const [row] = rows([info], registry(undefined));
    for (const key of ['batteryFullSeconds', 'batteryCycles', 'batteryHealthPercent', 'chargerMillivolts']) expect(row).not.toHaveProperty(key);
  });
});

describe('deviceRows: the port behind each phone', () => {
  it("the hub and port the settings map to its udid or serial, beside adb's usb path", () => {
    const reg = registry(undefined);
    reg.setUsb('android', new Map([[info.udid, { usb: '1-1.4.3', transportId: '7' }]]));
    const [row] = deviceRows([info], reg, { ports: new Map([[info.udid, { hub: '1-1.4', port: 3 }]]) });
    expect(row).toMatchObject({ usb: '1-1.4.3', hub: '1-1.4', hubPort: 3 });
    const [unmapped] = deviceRows([info], reg, { ports: new Map([['ELSE', { hub: '1-1.4', port: 3 }]]) });
    expect(unmapped).not.toHaveProperty('hub');
    expect(unmapped).not.toHaveProperty('hubPort');
  });

  it('the name the lab gives the hub its port hangs off (hubNames), else the one the settings map it to; none for a hub not named', () => {
    const reg = registry(undefined);
    const hubNames = new Map([
      ['1-1.4', 'rack B, shelf 2'],
      ['2-1', 'bench'],
    ]);
    reg.setUsb('android', new Map([[info.udid, { usb: '1-1.4.3', transportId: '7' }]]));
    expect(deviceRows([info], reg, { hubNames, ports: new Map([[info.udid, { hub: '2-1', port: 3 }]]) })[0]).toMatchObject({
      hub: '2-1',
      hubName: 'rack B, shelf 2',
    });
    reg.setUsb('android', new Map([[info.udid, { usb: '3-1.1', transportId: '7' }]]));
    expect(deviceRows([info], reg, { hubNames })[0]).not.toHaveProperty('hubName');
    reg.setUsb('android', new Map());
    expect(deviceRows([info], reg, { hubNames, ports: new Map([[info.udid, { hub: '2-1', port: 3 }]]) })[0]).toMatchObject({ hubName: 'bench' });
  });
});

describe('deviceRows: charge control', () => {
  it('a paused phone off adb keeps its serial, with its way and until when its port stays off', () => {
    const reg = new DeviceRegistry();
    const until = Date.UTC(2026, 10, 23, 17, 40, 0);
    new ChargePauses(reg, 'android').set('127.0.0.1:5555', {
      failures: 0,
      pause: {
        udid: 'U1',
        serial: '127.0.0.1:5555',
        way: 'uhubctl',
        hub: '1-1',
        port: 2,
        percent: 80,
        since: 0,
        sinceWall: 0,
        until: 1,
        untilWall: until,
      },
    });
    const ways = chargeWaysOf(['U1=uhubctl']);
    const [paused, other] = rows([{ ...info, udid: 'U1' }, info], reg, ways);
    expect(paused).toMatchObject({ serial: '127.0.0.1:5555', chargeWay: 'uhubctl', chargePausedUntil: until });
    expect(other).not.toHaveProperty('chargeWay');
    expect(other).not.toHaveProperty('chargePausedUntil');
  });

  it("the samsung way's state from the registry, pending until it is read; none for other ways", () => {
    const reg = registry(undefined);
    const samsung = chargeWaysOf([`${info.udid}=samsung`]);
    expect(rows([info], reg, samsung)[0]).toMatchObject({ chargeWay: 'samsung', chargeState: 'pending' });
    reg.facet(PROTECTION).set(`android/${info.udid}`, { failures: 0, state: 'not-taken', message: 'did not take' });
    expect(rows([info], reg, samsung)[0]).toMatchObject({ chargeWay: 'samsung', chargeState: 'not-taken' });
    expect(rows([info], reg, chargeWaysOf([`${info.udid}=uhubctl`]))[0]).not.toHaveProperty('chargeState');
  });
});

describe("deviceRows: the features' cells", () => {
  it("each feature's cells of the device, with its record; none without features, nor when every feature says nothing", () => {
    const seen: Array<string | undefined> = [];
    const features = [
      { name: 'a', cells: (_i: DeviceInfo, d: { serial: string } | undefined) => (seen.push(d?.serial), { readiness: 'ready' }) },
      { name: 'b', cells: () => ({ usbPort: '1-1.4.2 ok' }) },
      { name: 'c' },
    ];
    const [row] = deviceRows([info], registry(undefined), { features });
    expect(row!.features).toEqual({ readiness: 'ready', usbPort: '1-1.4.2 ok' });
    expect(seen).toEqual([info.udid]);
    expect(deviceRows([info], registry(undefined))[0]).not.toHaveProperty('features');
    expect(deviceRows([info], registry(undefined), { features: [{ name: 'quiet', cells: () => ({}) }] })[0]).not.toHaveProperty('features');
  });
});
