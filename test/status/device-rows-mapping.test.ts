import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { deviceRows } from '../../src/status/device-rows.js';
import { DeviceMapping } from '../../src/actions/device-mapping.js';
import { chargeWaysOf } from '../../src/config/charge-ways.js';
import { captureLogger } from '../log/capture.js';
import { rowFeatures } from './row-features.js';

const info = (udid: string): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
});

/** Phone B on adb as SB (udid UB), and phone A on adb as SA giving SB, B's adb serial, as its udid. */
function lab(): DeviceRegistry {
  const reg = new DeviceRegistry();
  reg.sync(
    'android',
    new Map([
      ['SB', 'device'],
      ['SA', 'device'],
    ]),
  );
  reg.readings.identify('android/SB', 'UB');
  reg.readings.identify('android/SA', 'SB');
  return reg;
}

// The rows show the port and way the actions would use (src/actions/device-mapping.ts):
// a key naming two phones maps neither, so neither row claims it.
describe("deviceRows: through the actions' look-up", () => {
  it("a phone giving another phone's adb serial as its udid does not show that phone's hub port or charge way", () => {
    const hubPorts = new Map([['SB', { hub: '1-1', port: 2 }]]);
    const chargeWays = chargeWaysOf(['SB=uhubctl']);
    const reg = lab();
    const look = new DeviceMapping({ hubPorts, chargeWays, logger: captureLogger().logger });
    const rows = deviceRows([info('SB'), info('UB')], reg, { ports: hubPorts, mapping: { look, platform: 'android' }, features: rowFeatures(reg, look) });
    for (const row of rows) {
      expect(row, `row of ${row.serial}`).not.toHaveProperty('hub');
      expect(row, `row of ${row.serial}`).not.toHaveProperty('chargeWay');
    }
  });

  it('a key naming one phone shows its port and way, as before', () => {
    const hubPorts = new Map([['UB', { hub: '1-1', port: 2 }]]);
    const chargeWays = chargeWaysOf(['UB=uhubctl']);
    const look = new DeviceMapping({ hubPorts, chargeWays, logger: captureLogger().logger });
    const reg = lab();
    const [row] = deviceRows([info('UB')], reg, { ports: hubPorts, mapping: { look, platform: 'android' }, features: rowFeatures(reg, look) });
    expect(row).toMatchObject({ serial: 'SB', hub: '1-1', hubPort: 2, chargeWay: 'uhubctl' });
  });
});
