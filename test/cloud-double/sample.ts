// Invented, contract-conforming PUT /devices bodies for tests of the cloud
// side (the wire shape, not device output). Field values are made up; the
// field names and types follow docs/reference/cloud-api-v1.md.

import type { DeviceInfo, Machine, ReportBody } from '../../src/cloud/types.js';

export function sampleMachine(): Machine {
  return {
    hostname: 'lab-node-01',
    arch: 'x64',
    freemem: 8_123_456_512,
    totalmem: 16_777_216_000,
    platform: 'linux',
    type: 'Linux',
    uptime: 86_400,
    version: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.0',
    buildNumber: '6.1.0-18-amd64',
    network: {
      address: '192.168.1.20',
      netmask: '255.255.255.0',
      family: 'IPv4',
      mac: '02:42:ac:11:00:02',
      cidr: '192.168.1.20/24',
      internal: false,
    },
  };
}

export function sampleDevice(udid = 'R58M123ABC', overrides: Partial<DeviceInfo> = {}): DeviceInfo {
  return {
    udid,
    serialNumber: udid,
    state: 'device',
    status: 'AVAILABLE',
    platformName: 'ANDROID',
    platformVersion: '13',
    modelName: 'SM-G991B',
    brandName: 'samsung',
    deviceName: 'Galaxy S21',
    cpuArchitecture: 'arm64-v8a',
    isAndroid: true,
    isIos: false,
    isEmulator: false,
    installedBrowsers: [{ name: 'chrome' }],
    orientation: 0,
    resolution: { width: 1080, height: 2400, logical: { width: 1080, height: 2400 } },
    battery: { status: 'charging', temperature: 291, voltage: 4312, health: 'good', technology: 'Li-ion', percentage: '87' },
    memory: { total: 7_812_345_856, used: 4_123_456_512 },
    storage: { total: 110_000_000_000, used: 42_000_000_000 },
    ...overrides,
  };
}

export function sampleReport(devices: DeviceInfo[] = [sampleDevice()], nodeId = 'node-1'): ReportBody {
  return { nodeId, machine: sampleMachine(), devices };
}
