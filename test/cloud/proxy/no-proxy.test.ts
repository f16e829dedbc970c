// NO_PROXY as curl reads it. The groups marked (curl) follow curl's
// lib/noproxy.c and CURLOPT_NOPROXY(3) ("ample.com" matches ample.com,
// ample.com:80 and www.ample.com, not www.example.com or ample.com.org; CIDR
// since 7.86.0); the last group holds the forms curl matches nothing for.
import { describe, expect, it } from 'vitest';
import { formatEntry, noProxyMatch, parseNoProxy } from '../../../src/cloud/proxy/no-proxy.js';

const bypass = (list: string, host: string, port = 443): boolean => noProxyMatch(parseNoProxy(list), host, port) !== undefined;

describe('NO_PROXY host names (curl)', () => {
  it('matches the host itself and every host under it, not a longer name', () => {
    expect(bypass('example.com', 'example.com')).toBe(true);
    expect(bypass('example.com', 'www.example.com')).toBe(true);
    expect(bypass('example.com', 'a.b.example.com')).toBe(true);
    expect(bypass('example.com', 'notexample.com')).toBe(false);
    expect(bypass('example.com', 'example.com.org')).toBe(false);
    expect(bypass('www.example.com', 'example.com')).toBe(false);
  });

  it('ignores one leading and one trailing dot, in the entry and in the host, and case', () => {
    expect(bypass('.example.com', 'example.com')).toBe(true);
    expect(bypass('.example.com', 'www.example.com')).toBe(true);
    expect(bypass('.example.com', 'notexample.com')).toBe(false);
    expect(bypass('example.com.', 'www.example.com')).toBe(true);
    expect(bypass('example.com', 'www.example.com.')).toBe(true);
    expect(bypass('EXAMPLE.com', 'Www.Example.COM')).toBe(true);
  });

  it('matches a host name on every port', () => {
    expect(bypass('example.com', 'example.com', 80)).toBe(true);
    expect(bypass('example.com', 'example.com', 8443)).toBe(true);
  });

  it('reads a comma-separated list, blanks around entries and empty entries allowed', () => {
    expect(bypass('localhost, .corp.example ,,cloud.example.com', 'cloud.example.com')).toBe(true);
    expect(bypass('localhost,127.0.0.1', '127.0.0.1')).toBe(true);
    expect(bypass('127.0.0.1,localhost', '127.0.0.1')).toBe(true);
  });

  it('"*" sends every host direct; an empty list none', () => {
    expect(bypass('*', 'cloud.example.com')).toBe(true);
    expect(bypass('*', '10.1.2.3')).toBe(true);
    expect(bypass('', 'cloud.example.com')).toBe(false);
    expect(noProxyMatch(parseNoProxy(undefined), 'cloud.example.com', 443)).toBeUndefined();
  });

  it('never resolves names: localhost does not cover 127.0.0.1', () => {
    expect(bypass('localhost', '127.0.0.1')).toBe(false);
    expect(bypass('127.0.0.1', 'localhost')).toBe(false);
  });
});

describe('NO_PROXY IP literals (curl)', () => {
  it('compares IPv4 addresses, with a CIDR prefix length', () => {
    expect(bypass('192.168.0.1', '192.168.0.1')).toBe(true);
    expect(bypass('192.168.0.1', '192.168.0.10')).toBe(false);
    expect(bypass('192.168.0.0/16', '192.168.99.3')).toBe(true);
    expect(bypass('192.168.0.0/16', '192.169.0.1')).toBe(false);
    expect(bypass('10.0.0.0/8', '10.255.255.255')).toBe(true);
    expect(bypass('10.0.0.0/8', '11.0.0.0')).toBe(false);
    expect(bypass('172.16.0.0/12', '172.31.1.1')).toBe(true);
    expect(bypass('172.16.0.0/12', '172.32.0.1')).toBe(false);
    expect(bypass('0.0.0.0/0', '8.8.8.8')).toBe(true);
  });

  it('compares IPv6 addresses as addresses, written without brackets, with a prefix length', () => {
    expect(bypass('::1', '[::1]')).toBe(true);
    expect(bypass('::1', '::1')).toBe(true);
    expect(bypass('::1', '[0:0:0:0:0:0:0:1]')).toBe(true);
    expect(bypass('0:0:0:0:0:0:7f00:1', '[::7f00:1]')).toBe(true);
    expect(bypass('::127.0.0.1', '[::7f00:1]')).toBe(true);
    expect(bypass('fe80::/10', '[fe80::1:2]')).toBe(true);
    expect(bypass('fe80::/10', '[fec0::1]')).toBe(false);
    expect(bypass('2001:db8::/32', '[2001:db8:ffff::1]')).toBe(true);
    expect(bypass('2001:db8::/32', '[2001:db9::1]')).toBe(false);
  });

  it('does not compare an address with a name, or IPv4 with IPv6', () => {
    expect(bypass('example.com', '93.184.216.34')).toBe(false);
    expect(bypass('127.0.0.1', '[::1]')).toBe(false);
    expect(bypass('::1', '127.0.0.1')).toBe(false);
  });
});

describe('NO_PROXY forms curl matches nothing for', () => {
  it('reads "*.example.com" as ".example.com"', () => {
    expect(bypass('*.example.com', 'www.example.com')).toBe(true);
    expect(bypass('*.example.com', 'example.com')).toBe(true);
    expect(bypass('*.example.com', 'notexample.com')).toBe(false);
  });

  it('takes an entry with a port for that port only', () => {
    expect(bypass('cloud.example.com:8443', 'cloud.example.com', 8443)).toBe(true);
    expect(bypass('cloud.example.com:8443', 'cloud.example.com', 443)).toBe(false);
    expect(bypass('example.com:443', 'api.example.com', 443)).toBe(true);
    expect(bypass('10.0.0.5:8080', '10.0.0.5', 8080)).toBe(true);
    expect(bypass('10.0.0.5:8080', '10.0.0.5', 80)).toBe(false);
    expect(bypass('[::1]:8080', '[::1]', 8080)).toBe(true);
    expect(bypass('[::1]:8080', '[::1]', 8081)).toBe(false);
    expect(bypass('[::1]', '[::1]', 1)).toBe(true);
  });

  it('takes "*" anywhere in the list, and blanks as separators', () => {
    expect(bypass('localhost,*', 'cloud.example.com')).toBe(true);
    expect(bypass('localhost .example.com', 'cloud.example.com')).toBe(true);
  });

  it('keeps entries that can never match apart, for doctor, and matches the rest', () => {
    const list = parseNoProxy('example.com:99999,10.0.0.0/33,ex ample,good.example,host:port,a/b,::zz');
    expect(list.ignored).toEqual(['example.com:99999', '10.0.0.0/33', 'host:port', 'a/b', '::zz']);
    expect(list.entries.map(formatEntry)).toEqual(['ex', 'ample', 'good.example']);
  });
});

describe('formatEntry', () => {
  it('writes each entry back the way it reads', () => {
    const list = parseNoProxy('*,.Example.COM,10.0.0.0/8,10.0.0.5:8080,::1,fe80::/10,[::1]:8080,api.example.com:8443');
    expect(list.entries.map(formatEntry)).toEqual([
      '*',
      'example.com',
      '10.0.0.0/8',
      '10.0.0.5:8080',
      '0:0:0:0:0:0:0:1',
      'fe80:0:0:0:0:0:0:0/10',
      '[0:0:0:0:0:0:0:1]:8080',
      'api.example.com:8443',
    ]);
  });

  it('writes an IPv6 entry with a zone (%eth0) without it, as it matches', () => {
    const [entry] = parseNoProxy('fe80::1%eth0').entries;
    expect(bypass('fe80::1%eth0', '[fe80::1]')).toBe(true);
    expect(formatEntry(entry!)).toBe('fe80:0:0:0:0:0:0:1');
  });
});
