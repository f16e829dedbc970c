// The tunnel daemons' listings, from what each one's source writes (fixtures/SOURCES.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseListing, sameUdid } from '../../../src/features/ios-developer/daemons.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

describe("go-ios's GET /tunnels", () => {
  it('each tunnel with its udid, address and RSD port; the same udid twice as #712 listed it', () => {
    expect(parseListing('go-ios', fixture('go-ios-tunnels-712.json'))).toEqual({
      ok: true,
      tunnels: [
        { udid: '00008101-000A5C2E0C61001E', address: 'fdad:85c3:8dc6::1', port: 50338 },
        { udid: '00008101-000A5C2E0C61001E', address: 'fdc5:cb62:1683::1', port: 64148 },
        { udid: '00008101-001D49A20E38003A', address: 'fdef:64a2:81e::1', port: 58811 },
      ],
      unread: 0,
    });
  });

  it('the userspace flag when it says (go-ios 1.0.129 and later); a port of 0 kept as read', () => {
    expect(parseListing('go-ios', fixture('go-ios-tunnels-765.json'))).toMatchObject({ ok: true, tunnels: [{ port: 51971, userspace: false }] });
    expect(parseListing('go-ios', fixture('go-ios-tunnels-670-port-0.json'))).toMatchObject({ ok: true, tunnels: [{ port: 0 }] });
  });

  it('none: [] or null', () => {
    expect(parseListing('go-ios', fixture('go-ios-tunnels-empty.json'))).toEqual({ ok: true, tunnels: [], unread: 0 });
    expect(parseListing('go-ios', fixture('go-ios-tunnels-null.json'))).toEqual({ ok: true, tunnels: [], unread: 0 });
  });

  it("garbage: not JSON, not an array (tunneld's object at go-ios's port), entries of the wrong shape counted", () => {
    expect(parseListing('go-ios', '<html>502 Bad Gateway</html>')).toEqual({ ok: false, why: 'its listing is not JSON' });
    expect(parseListing('go-ios', fixture('tunneld-listing.json'))).toMatchObject({ ok: false });
    expect(
      parseListing(
        'go-ios',
        JSON.stringify([
          { address: 'fd::1', rsdPort: 70000, udid: '00008101-000A5C2E0C61001E' },
          { address: 'fd::1', rsdPort: 1, udid: 'x;rm -rf' },
          'x',
          null,
        ]),
      ),
    ).toEqual({ ok: true, tunnels: [], unread: 4 });
  });
});

describe("pymobiledevice3's tunneld GET /", () => {
  it('each udid with its tunnels, a dashless udid kept as listed', () => {
    expect(parseListing('tunneld', fixture('tunneld-listing.json'))).toEqual({
      ok: true,
      tunnels: [
        { udid: '00008110-001C19A43420401E', address: 'fd56:2b3c:1e44::1', port: 60511 },
        { udid: '00008101001D49A20E38003A', address: 'fdc1:77a0:91d2::1', port: 52203 },
      ],
      unread: 0,
    });
    expect(parseListing('tunneld', fixture('tunneld-empty.json'))).toEqual({ ok: true, tunnels: [], unread: 0 });
  });

  it("garbage: go-ios's array at tunneld's port, bad entries counted", () => {
    expect(parseListing('tunneld', fixture('go-ios-tunnels-712.json'))).toMatchObject({ ok: false });
    expect(parseListing('tunneld', JSON.stringify({ 'not a udid!': [], '00008110-001C19A43420401E': [{ 'tunnel-address': 1 }] }))).toEqual({
      ok: true,
      tunnels: [],
      unread: 2,
    });
  });

  it('a dashless udid is the same phone, nothing else is', () => {
    expect(sameUdid('00008101001D49A20E38003A', '00008101-001D49A20E38003A')).toBe(true);
    expect(sameUdid('00008101-001D49A20E38003A', '00008101-001D49A20E38003A')).toBe(true);
    expect(sameUdid('00008101-001D49A20E38003B', '00008101-001D49A20E38003A')).toBe(false);
  });
});
