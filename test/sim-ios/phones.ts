// Recorded iPhones: the lockdown values the simulator answers with. Key names
// and value shapes follow public `ideviceinfo` recordings (see SOURCES.md);
// serials and UDIDs are the recorded formats with digits changed.
export type Values = Record<string, unknown>;

export interface PhoneProfile {
  name: string;
  /** Root-domain values (GetValue with no domain). */
  root: Values;
  /** Other domains by name. */
  domains: Record<string, Values>;
}

const battery = (percent: number, charging: boolean): Values => ({
  BatteryCurrentCapacity: percent,
  BatteryIsCharging: charging,
  ExternalChargeCapable: true,
  ExternalConnected: true,
  FullyCharged: percent === 100,
  GasGaugeCapability: true,
  HasBattery: true,
});

export const PROFILES: Record<string, PhoneProfile> = {
  'iphone-6s-ios9': {
    name: 'iphone-6s-ios9',
    root: {
      BuildVersion: '13G36',
      CPUArchitecture: 'arm64',
      DeviceClass: 'iPhone',
      DeviceColor: '#3b3b3c',
      DeviceName: 'Lab iPhone 6s',
      HardwareModel: 'N71AP',
      ProductName: 'iPhone OS',
      ProductType: 'iPhone8,1',
      PasswordProtected: false,
      ProductVersion: '9.3.5',
      SerialNumber: 'F17QK0ZJGRY5',
      UniqueDeviceID: '5e2f7a1b9c0d4e3f8a6b1c2d3e4f5a6b7c8d9e0f',
      WiFiAddress: 'a4:d1:8c:11:22:33',
    },
    domains: {
      'com.apple.mobile.battery': battery(87, false),
      'com.apple.disk_usage': {
        TotalDiskCapacity: 16000000000,
        TotalDataCapacity: 12708597760,
        TotalDataAvailable: 4219846656,
        AmountDataAvailable: 4051574496,
        AmountDataReserved: 168272160,
        TotalSystemCapacity: 3208642560,
        TotalSystemAvailable: 453898240,
      },
    },
  },
  'iphone-13-ios16': {
    name: 'iphone-13-ios16',
    root: {
      BuildVersion: '20D67',
      CPUArchitecture: 'arm64e',
      DeviceClass: 'iPhone',
      DeviceColor: '1',
      DeviceName: 'Lab iPhone 13',
      HardwareModel: 'D17AP',
      HardwarePlatform: 't8110',
      ProductName: 'iPhone OS',
      ProductType: 'iPhone14,5',
      PasswordProtected: false,
      ProductVersion: '16.3.1',
      SerialNumber: 'C1QQG9XD4R',
      UniqueDeviceID: '00008110-000E44540A2A801E',
      WiFiAddress: 'bc:d0:74:44:55:66',
    },
    domains: {
      'com.apple.mobile.battery': battery(100, false),
      'com.apple.security.mac.amfi': { DeveloperModeStatus: true },
      'com.apple.disk_usage': {
        TotalDiskCapacity: 128000000000,
        TotalDataCapacity: 111735013376,
        TotalDataAvailable: 69709336576,
        AmountDataAvailable: 30706774016,
        AmountDataReserved: 0,
        TotalSystemCapacity: 0,
        TotalSystemAvailable: 0,
      },
    },
  },
  'iphone-15-ios17': {
    name: 'iphone-15-ios17',
    root: {
      BuildVersion: '21E236',
      CPUArchitecture: 'arm64e',
      DeviceClass: 'iPhone',
      DeviceColor: '1',
      DeviceName: 'Lab iPhone 15',
      HardwareModel: 'D37AP',
      HardwarePlatform: 't8120',
      ProductName: 'iPhone OS',
      ProductType: 'iPhone15,4',
      PasswordProtected: false,
      ProductVersion: '17.4.1',
      SerialNumber: 'HW7QX2L9PQ',
      UniqueDeviceID: '00008120-001A2C3E0E83C01E',
      WiFiAddress: '8c:98:6b:77:88:99',
    },
    domains: {
      'com.apple.mobile.battery': battery(42, true),
      'com.apple.security.mac.amfi': { DeveloperModeStatus: true },
      'com.apple.disk_usage': {
        TotalDiskCapacity: 256000000000,
        TotalDataCapacity: 238047506432,
        TotalDataAvailable: 74871640064,
        AmountDataAvailable: 32973029376,
        AmountDataReserved: 0,
        TotalSystemCapacity: 0,
        TotalSystemAvailable: 0,
      },
    },
  },
};

/** What lockdown answers before a session: what a real phone shows any host. */
export const PUBLIC_KEYS = new Set([
  'BuildVersion',
  'DeviceClass',
  'DeviceColor',
  'DeviceName',
  'DevicePublicKey',
  'HardwareModel',
  'ProductName',
  'ProductType',
  'ProductVersion',
  'UniqueDeviceID',
  'CPUArchitecture',
]);

export function profile(name: string): PhoneProfile {
  const p = PROFILES[name];
  if (!p) throw new Error(`unknown iPhone profile ${name}; known: ${Object.keys(PROFILES).join(', ')}`);
  return structuredClone(p);
}
