import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimIndex, keyNames, keyRefusalText, mappedFor } from '../../src/actions/mapping-key.js';
import type { Claim } from '../../src/devices/claims.js';

const PORT = { hub: '1-1.4', port: 4 };
const tcp = (serial: string): boolean => /:\d+$/.test(serial);

describe('mappedFor: the entry of a device, kept only when its key names that phone alone (issue 42)', () => {
  it("a key that is one network phone's adb serial and the udid another gives maps neither", () => {
    const first: Claim = { serial: '127.0.0.1:5601', udid: 'FIRST01', ready: true };
    const second: Claim = { serial: '127.0.0.1:5602', udid: '127.0.0.1:5601', ready: true };
    const entries = new Map([['127.0.0.1:5601', PORT]]);
    for (const c of [first, second]) {
      const found = mappedFor(entries, c, [first, second]);
      expect(found).toMatchObject({
        kind: 'refused',
        key: '127.0.0.1:5601',
        names: { kind: 'serial_and_udid', serial: first.serial, byUdid: [second.serial] },
      });
    }
    // Alone, the first phone is its key's.
    expect(mappedFor(entries, first, [first])).toEqual({ kind: 'mapped', key: '127.0.0.1:5601', value: PORT });
  });

  it("a USB phone whose serial is another phone's udid: neither, whatever the transports", () => {
    const gadget: Claim = { serial: 'VICTIM01', udid: 'GADGET01', usb: '1-1.3' };
    const victim: Claim = { serial: '10.0.0.2:5555', udid: 'VICTIM01' };
    const entries = new Map([['VICTIM01', PORT]]);
    expect(mappedFor(entries, gadget, [gadget, victim]).kind).toBe('refused');
    expect(mappedFor(entries, victim, [gadget, victim]).kind).toBe('refused');
  });

  it('a key that is two phones’ udid maps neither; one phone over USB and TCP is one phone', () => {
    const a: Claim = { serial: 'R5CY01', udid: 'R5CY01', usb: '1-1.4.4' };
    const b: Claim = { serial: 'FAKE01', udid: 'R5CY01', usb: '1-1.3' };
    const twin: Claim = { serial: '10.0.0.2:5555', udid: 'R5CY01' };
    const entries = new Map([['R5CY01', PORT]]);
    expect(mappedFor(entries, a, [a, b])).toMatchObject({ kind: 'refused', names: { kind: 'shared_udid', serials: ['FAKE01', 'R5CY01'] } });
    expect(mappedFor(entries, a, [a, twin]).kind).toBe('mapped');
    expect(mappedFor(entries, twin, [a, twin]).kind).toBe('mapped');
  });

  it('a key matching by serial a USB phone that has not said its udid, and giving network phones’ udid: refused until it says', () => {
    const unread: Claim = { serial: 'R5CY01', usb: '1-1.4.4', ready: true };
    const net: Claim = { serial: '10.0.0.2:5555', udid: 'R5CY01' };
    const entries = new Map([['R5CY01', PORT]]);
    const found = mappedFor(entries, net, [unread, net]);
    expect(found).toMatchObject({ kind: 'refused', names: { kind: 'unsure', serial: 'R5CY01' } });
    expect(keyRefusalText('R5CY01', (found as Extract<typeof found, { kind: 'refused' }>).names)).toMatch(/has not said its udid yet/);
    // It says R5CY01: one phone over USB and TCP. It says another: two phones.
    expect(mappedFor(entries, net, [{ ...unread, udid: 'R5CY01' }, net]).kind).toBe('mapped');
    expect(mappedFor(entries, net, [{ ...unread, udid: 'OTHER01' }, net]).kind).toBe('refused');
    // Alone, a phone mapped by its serial is its key's before it says its udid.
    expect(mappedFor(entries, unread, [unread]).kind).toBe('mapped');
  });

  it('its udid first, then its serial; neither a key: none', () => {
    const c: Claim = { serial: 'SER01', udid: 'UDID01' };
    const entries = new Map([
      ['SER01', { hub: '1-1', port: 1 }],
      ['UDID01', { hub: '1-1', port: 2 }],
    ]);
    expect(mappedFor(entries, c, [c])).toEqual({ kind: 'mapped', key: 'UDID01', value: { hub: '1-1', port: 2 } });
    expect(mappedFor(new Map([['X', PORT]]), c, [c])).toEqual({ kind: 'none' });
  });

  it('property: an entry is kept for a device only when its key names exactly one phone, that device’s, and always then', () => {
    // Names from one small pool, so that serials and udids collide: USB-like and TCP-like.
    const name = fc.constantFrom('A1', 'B2', 'C3', '127.0.0.1:5601', '127.0.0.1:5602', '10.0.0.9:5555');
    const claim = fc.record({ serial: name, udid: fc.option(name, { nil: undefined }), ready: fc.boolean() });
    fc.assert(
      fc.property(fc.uniqueArray(claim, { selector: (c) => c.serial, minLength: 1, maxLength: 5 }), name, fc.nat(), (claims, key, pick) => {
        const c = claims[pick % claims.length]!;
        const found = mappedFor(new Map([[key, PORT]]), c, claims);
        const matches = claims.filter((o) => o.serial === key || o.udid === key);
        // The oracle: one device, or devices all giving the key as udid of which exactly one is on USB (one phone over USB and TCP).
        const onePhone = matches.length === 1 || (matches.every((o) => o.udid === key) && matches.filter((o) => !tcp(o.serial)).length === 1);
        // A USB device matched by serial that has not said its udid, beside network devices giving the key: may be one phone, not known yet.
        if (found.kind === 'mapped') {
          expect(onePhone).toBe(true);
          expect(matches).toContain(c);
          expect(found.key).toBe(key);
        } else if (matches.includes(c) && (c.udid === key || c.serial === key)) {
          expect(found.kind).toBe('refused');
          expect(onePhone).toBe(false);
        } else {
          expect(found.kind).toBe('none');
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('ClaimIndex: the claims of one look, indexed once', () => {
  it('property: names what a scan of the claims names, with the asking device standing for its serial (duplicates, missing udids and collisions included)', () => {
    const name = fc.constantFrom('A1', 'B2', 'C3', '127.0.0.1:5601', '127.0.0.1:5602', '10.0.0.9:5555');
    const claim = fc.record({ serial: name, udid: fc.option(name, { nil: undefined }), ready: fc.boolean() });
    fc.assert(
      // Not unique by serial: a scan takes the first device under a serial, and so must the index.
      fc.property(fc.array(claim, { maxLength: 6 }), claim, name, (claims, asking, key) => {
        const scanned = keyNames(key, [asking, ...claims.filter((c) => c.serial !== asking.serial)]);
        expect(new ClaimIndex(claims).namesWith(key, asking)).toEqual(scanned);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('keyNames: what a mapping key names among the devices listed', () => {
  it('names nothing when no device has it as serial or udid', () => {
    expect(keyNames('K', [{ serial: 'A', udid: 'B' }])).toEqual({ kind: 'none' });
  });
});
