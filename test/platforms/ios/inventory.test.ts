import { describe, expect, it } from 'vitest';
import {
  iosBattery,
  iosDeviceInfo,
  iosStorage,
  NOT_PAIRED_MESSAGE,
  notAnsweringDeviceInfo,
  notPairedDeviceInfo,
} from '../../../src/platforms/ios/inventory.js';
import { modelName } from '../../../src/platforms/ios/models.js';

// Root values as recorded from `ideviceinfo` on an iPhone14,5 with iOS 16.3.1
// (public table, see test/sim-ios/SOURCES.md).
const IPHONE13_IOS16 = {
  DeviceName: 'iPhone',
  ProductName: 'iPhone OS',
  ProductType: 'iPhone14,5',
  ProductVersion: '16.3.1',
  BuildVersion: '20D67',
  SerialNumber: 'C1QQG9XD4R',
  UniqueDeviceID: '00008110-000E44540A2A801E',
  HardwareModel: 'D17AP',
  HardwarePlatform: 't8110',
};

// `ideviceinfo -q com.apple.disk_usage` on iOS 3, quoted in
// https://github.com/libimobiledevice/libimobiledevice/issues/1572
const DISK_USAGE_IOS3 = {
  WebAppCacheUsage: 0,
  PhotoUsage: 0,
  CalendarUsage: 110592,
  TotalDiskCapacity: 16239927296,
  CameraUsage: 0,
  AmountCameraAvailable: 15510867968,
  TotalDataAvailable: 15678640128,
  TotalDataCapacity: 15715639296,
  MobileApplicationUsage: 0,
  NotesUsage: 32768,
  AmountDataReserved: 167772160,
  MediaCacheUsage: 0,
  AmountDataAvailable: 15510867968,
  TotalSystemAvailable: 76472320,
};

describe('iosDeviceInfo', () => {
  it('maps a recorded iOS 16 phone', () => {
    const info = iosDeviceInfo('fallback', {
      root: { ...IPHONE13_IOS16, CPUArchitecture: 'arm64e' },
      battery: { BatteryCurrentCapacity: 87, BatteryIsCharging: true, ExternalConnected: true, FullyCharged: false },
      diskUsage: DISK_USAGE_IOS3,
    });
    expect(info).toEqual({
      udid: '00008110-000E44540A2A801E',
      serialNumber: 'C1QQG9XD4R',
      state: 'paired',
      status: 'AVAILABLE',
      platformName: 'IOS',
      platformVersion: '16.3.1',
      modelName: 'iPhone 13',
      brandName: 'Apple',
      deviceName: 'iPhone',
      cpuArchitecture: 'arm64e',
      isAndroid: false,
      isIos: true,
      isEmulator: false,
      battery: { status: 'CHARGING', percentage: '87' },
      storage: { total: 15715639296, used: 15715639296 - 15510867968 },
    });
  });

  it('keeps the ProductType when the table has no entry, and the usbmuxd udid when lockdown gave none', () => {
    const info = iosDeviceInfo('UDID-FROM-MUX', { root: { ProductType: 'iPhone99,9' } });
    expect(info.modelName).toBe('iPhone99,9');
    expect(info.udid).toBe('UDID-FROM-MUX');
    expect(info.serialNumber).toBe('UDID-FROM-MUX');
    expect(info.battery).toBeUndefined();
    expect('storage' in info).toBe(false);
  });

  it('ignores values of the wrong type instead of reporting them', () => {
    const info = iosDeviceInfo('U', { root: { ProductVersion: 16, DeviceName: '  ', CPUArchitecture: Buffer.from('x') } });
    expect(info.platformVersion).toBeUndefined();
    expect(info.deviceName).toBeUndefined();
    expect(info.cpuArchitecture).toBeUndefined();
  });
});

describe('iosBattery', () => {
  it('words the state as Android reports do', () => {
    expect(iosBattery({ BatteryCurrentCapacity: 100, FullyCharged: true, BatteryIsCharging: false })).toEqual({ status: 'FULL', percentage: '100' });
    expect(iosBattery({ BatteryCurrentCapacity: 42, BatteryIsCharging: false, ExternalConnected: false })).toEqual({ status: 'DISCHARGING', percentage: '42' });
    expect(iosBattery({ BatteryCurrentCapacity: 42, BatteryIsCharging: false, ExternalConnected: true })).toEqual({ status: 'NOT_CHARGING', percentage: '42' });
  });
  it('drops an impossible level and an empty domain', () => {
    expect(iosBattery({ BatteryCurrentCapacity: 140, BatteryIsCharging: true })).toEqual({ status: 'CHARGING' });
    expect(iosBattery({})).toBeUndefined();
  });
});

describe('iosStorage', () => {
  it('uses the data partition and what is free now', () => {
    expect(iosStorage(DISK_USAGE_IOS3)).toEqual({ total: 15715639296, used: 15715639296 - 15510867968 });
  });
  it('never reports negative use, and nothing without a capacity', () => {
    expect(iosStorage({ TotalDataCapacity: 100, AmountDataAvailable: 150 })).toEqual({ total: 100, used: 0 });
    expect(iosStorage({ AmountDataAvailable: 5 })).toBeUndefined();
    expect(iosStorage({ TotalDataCapacity: 0, AmountDataAvailable: 0 })).toBeUndefined();
  });
});

describe('states with advice', () => {
  it('an unpaired phone is UNAVAILABLE and says to unlock, trust and pair', () => {
    const info = notPairedDeviceInfo('U1', 'InvalidHostID');
    expect(info.status).toBe('UNAVAILABLE');
    expect(info.isIos).toBe(true);
    expect(info.message).toContain('Trust');
    expect(info.message).toContain('idevicepair pair');
    expect(info.message).toContain('InvalidHostID');
    expect(NOT_PAIRED_MESSAGE).toMatch(/unlock/);
  });
  it('a silent lockdown keeps the last good inventory and adds a message', () => {
    const good = iosDeviceInfo('U', { root: IPHONE13_IOS16 });
    const info = notAnsweringDeviceInfo('U', 'StartSession did not answer within 5000 ms', good);
    expect(info).toEqual({ ...good, message: expect.stringContaining('did not answer') });
    const bare = notAnsweringDeviceInfo('U', 'x');
    expect(bare.status).toBe('UNAVAILABLE');
    expect(bare.udid).toBe('U');
  });
});

describe('modelName', () => {
  it('names recorded ProductTypes', () => {
    expect(modelName('iPhone8,1')).toBe('iPhone 6s');
    expect(modelName('iPhone15,4')).toBe('iPhone 15');
    expect(modelName('toString')).toBe('toString');
  });
});
