import { STATUS_AVAILABLE } from '../../../../src/cloud/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../../src/cloud/types.js';
import { notReadyDeviceInfo } from '../../../../src/platforms/android/inventory/assemble.js';
import { keptByUdid } from '../../../../src/platforms/android/inventory/dedupe.js';

const dedupeByUdid = (infos: readonly DeviceInfo[]) => keptByUdid(infos).map((k) => k.info);

function ready(udid: string, serial: string, tunnel?: Record<string, unknown>): DeviceInfo {
  const info: DeviceInfo = {
    udid,
    serialNumber: udid,
    state: 'device',
    status: STATUS_AVAILABLE,
    platformName: 'ANDROID',
    isAndroid: true,
    isIos: false,
    modelName: serial,
  };
  if (tunnel) info.adbTunnelInfo = tunnel;
  return info;
}

describe('dedupeByUdid', () => {
  it('USB and TCP views of one phone become one device, keeping the USB one and the tunnel', () => {
    const tcp = ready('R5CY743GDFY', '192.168.1.20:5555', { host: '192.168.1.20', port: 5555 });
    const usb = ready('R5CY743GDFY', 'R5CY743GDFY');
    const out = dedupeByUdid([tcp, usb, ready('f89a5ec6', 'f89a5ec6')]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ modelName: 'R5CY743GDFY', adbTunnelInfo: { host: '192.168.1.20', port: 5555 } });
    expect(out[1]?.udid).toBe('f89a5ec6');
  });

  it('a ready entry beats a not-ready twin', () => {
    const offline = notReadyDeviceInfo('R5CY743GDFY', 'offline');
    const tcp = ready('R5CY743GDFY', 'tcp', { host: 'h', port: 5555 });
    expect(dedupeByUdid([offline, tcp])[0]?.status).toBe(STATUS_AVAILABLE);
  });

  it('keeps one entry per udid, never more, never fewer', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.boolean())), (pairs) => {
        const infos = pairs.map(([udid, tcp]) => ready(udid, udid, tcp ? { host: 'h', port: 1 } : undefined));
        expect(dedupeByUdid(infos).map((i) => i.udid)).toEqual([...new Set(pairs.map(([u]) => u))]);
      }),
    );
  });
});
