// adb's mdns services answer, parsed from what adb's source prints
// (fixtures/mdns/SOURCES.md); garbage and floods are counted, never guessed at.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINES, parseMdnsServices } from '../../../../src/platforms/android/adb/mdns.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/mdns/${name}`, import.meta.url), 'utf8');

describe('host:mdns:services', () => {
  it('Openscreen (adb 31 and later): each service with its instance name, type and IPv4 address', () => {
    expect(parseMdnsServices(fixture('openscreen.txt'))).toEqual({
      services: [
        { instance: 'adb-14141FDF600081', type: 'adb', address: '192.168.86.38:5555' },
        { instance: 'adb-14141FDF600081-QXjCrW', type: 'adb-tls-pairing', address: '192.168.86.38:33861' },
        { instance: 'adb-14141FDF600081-TnSdi9', type: 'adb-tls-connect', address: '192.168.86.38:33015' },
        { instance: 'studio-g@<xeYnap/', type: 'adb-tls-pairing', address: '192.168.86.39:55861' },
      ],
      unread: 0,
      over: 0,
    });
  });

  it("Bonjour (adb 30): the reg type's trailing dot is the same service", () => {
    expect(parseMdnsServices(fixture('bonjour.txt')).services).toEqual([
      { instance: 'adb-14141FDF600081-TnSdi9', type: 'adb-tls-connect', address: '192.168.86.38:33015' },
      { instance: 'adb-14141FDF600081-QXjCrW', type: 'adb-tls-pairing', address: '192.168.86.38:33861' },
    ]);
  });

  it('a service resolved on IPv6 only (no address printed): unread, nothing to connect', () => {
    expect(parseMdnsServices(fixture('ipv6-only.txt'))).toEqual({ services: [], unread: 1, over: 0 });
  });

  it('an empty answer (discovery off, nothing announced) and the CLI header: no services, nothing unread', () => {
    expect(parseMdnsServices(fixture('empty.txt'))).toEqual({ services: [], unread: 0, over: 0 });
    expect(parseMdnsServices(`List of discovered mdns services\n${fixture('bonjour.txt')}`).services).toHaveLength(2);
  });

  it('garbage: other services, bad addresses or ports, extra columns, control characters: unread, counted', () => {
    const text = [
      'x\t_googlecast._tcp\t192.168.1.20:8009',
      'x\t_adb-tls-connect._tcp\t192.168.1.300:5555',
      'x\t_adb-tls-connect._tcp\t192.168.1.3:0',
      'x\t_adb-tls-connect._tcp\t192.168.1.3:65536',
      'x\t_adb-tls-connect._tcp\thost.local:5555',
      'x\t_adb-tls-connect._tcp\t192.168.1.3:5555\textra',
      'x y _adb-tls-connect._tcp 192.168.1.3:5555',
      'a\u001bb\t_adb-tls-connect._tcp\t192.168.1.3:5555',
      '\t_adb-tls-connect._tcp\t192.168.1.3:5555',
      'FAIL0014unknown host service',
    ].join('\n');
    expect(parseMdnsServices(text)).toEqual({ services: [], unread: 10, over: 0 });
  });

  it(`a flood: at most ${MAX_LINES} lines read, the rest counted as over`, () => {
    const line = 'adb-X-abcdef\t_adb-tls-connect._tcp\t10.0.0.1:40000\n';
    const listing = parseMdnsServices(line.repeat(MAX_LINES + 250));
    expect(listing.services).toHaveLength(MAX_LINES);
    expect(listing.over).toBe(250);
  });

  it('any text: never throws, every service read has a port in range and an IPv4 address', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const { services } = parseMdnsServices(text);
        for (const s of services) {
          const port = Number(s.address.split(':')[1]);
          expect(port >= 1 && port <= 65535).toBe(true);
        }
      }),
    );
  });
});
