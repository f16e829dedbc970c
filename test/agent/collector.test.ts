import { describe, expect, it } from 'vitest';
import { dedupe } from '../../src/agent/collector.js';
import type { DeviceInfo } from '../../src/cloud/types.js';

const info = (udid: string, state: string, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state,
  status: state === 'device' ? 'AVAILABLE' : 'UNAVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  ...extra,
});

describe('dedupe', () => {
  it('keeps one record per udid, preferring a ready one, then the USB serial', () => {
    const usb = info('R58N12ABC', 'device', { modelName: 'usb' });
    const tcp = info('R58N12ABC', 'device', { modelName: 'tcp' });
    expect(dedupe([tcp, usb], ['192.168.1.7:5555', 'R58N12ABC'])).toEqual([usb]);
    expect(dedupe([usb, tcp], ['R58N12ABC', '192.168.1.7:5555'])).toEqual([usb]);

    const offlineUsb = info('R58N12ABC', 'offline');
    expect(dedupe([offlineUsb, tcp], ['R58N12ABC', '192.168.1.7:5555'])).toEqual([tcp]);
  });

  it('leaves distinct devices alone, in order', () => {
    const a = info('A', 'device');
    const b = info('B', 'unauthorized');
    expect(dedupe([a, b], ['A', 'B'])).toEqual([a, b]);
  });
});
