import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { pickNetwork } from '../../src/machine/network.js';

const lo: NetworkInterfaceInfo = { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' };
const eth4: NetworkInterfaceInfo = {
  address: '192.168.1.20',
  netmask: '255.255.255.0',
  family: 'IPv4',
  mac: 'aa:bb:cc:dd:ee:ff',
  internal: false,
  cidr: '192.168.1.20/24',
};
const eth6: NetworkInterfaceInfo = {
  address: 'fe80::1',
  netmask: 'ffff:ffff:ffff:ffff::',
  family: 'IPv6',
  mac: 'aa:bb:cc:dd:ee:ff',
  internal: false,
  cidr: 'fe80::1/64',
  scopeid: 2,
};
const wlan: NetworkInterfaceInfo = {
  address: '10.1.2.3',
  netmask: '255.255.0.0',
  family: 'IPv4',
  mac: '11:22:33:44:55:66',
  internal: false,
  cidr: '10.1.2.3/16',
};

describe('pickNetwork', () => {
  it('prefers the default-route interface and its IPv4 address', () => {
    expect(pickNetwork({ lo: [lo], eth0: [eth6, eth4], wlan0: [wlan] }, 'wlan0')).toEqual({ ...wlan, cidr: '10.1.2.3/16' });
    expect(pickNetwork({ lo: [lo], eth0: [eth6, eth4] }, 'eth0').address).toBe('192.168.1.20');
  });

  it('falls back to an external address, then loopback', () => {
    expect(pickNetwork({ lo: [lo], eth0: [eth4] }, undefined).address).toBe('192.168.1.20');
    expect(pickNetwork({ lo: [lo] }, undefined)).toMatchObject({ address: '127.0.0.1', internal: true, cidr: '127.0.0.1/8' });
    expect(pickNetwork({}, undefined).internal).toBe(true);
  });
});
