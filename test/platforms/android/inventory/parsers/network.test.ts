import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpAddresses, parsePing, parseProxy, preferredAddress } from '../../../../../src/platforms/android/inventory/parsers/network.js';
import { fixture } from '../fixture.js';

describe('parseIpAddresses', () => {
  it('one-line form (ip -o -4 addr)', () => {
    expect(parseIpAddresses(fixture('network', 'ip-o-4-eth0-xiaomi-vayu.txt'))).toEqual([{ iface: 'eth0', address: '192.168.1.130' }]);
  });

  it('multi-line form; wlan0 preferred over mobile data (invented, iproute2 layout)', () => {
    const text = [
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000',
      '    inet 127.0.0.1/8 scope host lo',
      '12: rmnet_data0: <UP,LOWER_UP> mtu 1500 qdisc mq state UNKNOWN group default qlen 1000',
      '    inet 10.64.12.7/30 scope global rmnet_data0',
      '30: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000',
      '    inet 192.168.0.42/24 brd 192.168.0.255 scope global wlan0',
    ].join('\n');
    expect(preferredAddress(parseIpAddresses(text))).toBe('192.168.0.42');
  });

  it('only loopback: no address', () => {
    expect(preferredAddress([{ iface: 'lo', address: '127.0.0.1' }])).toBeUndefined();
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void preferredAddress(parseIpAddresses(text))));
  });
});

describe('parseProxy', () => {
  it.each([
    ['null', false],
    [':0', false],
    ['', false],
    ['proxy.lab:3128', true],
    ['10.0.0.1:8080', true],
    ['Exception occurred', undefined],
  ])('%j → %s', (value, expected) => {
    expect(parseProxy(value)).toBe(expected);
  });
});

describe('parsePing', () => {
  it('reply received', () => {
    expect(parsePing(fixture('network', 'ping-reachable-iputils.txt'))).toEqual({ code: 0, status: 'REACHABLE' });
  });

  it('host unreachable (Samsung system ping)', () => {
    expect(parsePing(fixture('network', 'ping-unreachable-samsung-hltexx.txt'))).toEqual({ code: 1, status: 'UNREACHABLE' });
  });

  it('unknown host', () => {
    expect(parsePing('ping: unknown host cloud.example\n')).toEqual({ code: 2, status: 'UNKNOWN_HOST' });
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void parsePing(text)));
  });
});
