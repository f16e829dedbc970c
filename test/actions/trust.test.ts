import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { behindPort, conflictNote, portRefusal } from '../../src/actions/trust.js';
import { conflictsOf, type Claim } from '../../src/devices/claims.js';

const PORT = { hub: '1-1.4', port: 3 };

describe('conflictsOf: whose identity another device claims', () => {
  it('two network phones giving one udid: both are in conflict, named by their serials', () => {
    const claims: Claim[] = [
      { serial: '10.0.0.2:5555', udid: 'VICTIM01' },
      { serial: '10.0.0.3:5555', udid: 'VICTIM01' },
      { serial: 'OTHER001', udid: 'OTHER001', usb: '1-1.4.2' },
    ];
    const conflicts = conflictsOf(claims);
    expect([...conflicts.keys()].sort()).toEqual(['10.0.0.2:5555', '10.0.0.3:5555']);
    expect(conflicts.get('10.0.0.2:5555')).toEqual({ kind: 'shared_udid', id: 'VICTIM01', serials: ['10.0.0.2:5555', '10.0.0.3:5555'], devices: 2 });
    expect(conflictNote(conflicts.get('10.0.0.3:5555')!)).toMatch(
      /^identity in conflict: 2 devices \(adb serials 10\.0\.0\.2:5555, 10\.0\.0\.3:5555\) give the udid VICTIM01; no port power/,
    );
  });

  it('two USB phones giving one udid are in conflict; one phone over USB and TCP (adb tcpip) is not', () => {
    expect(
      conflictsOf([
        { serial: 'R5CY01', udid: 'R5CY01', usb: '1-1.4.3' },
        { serial: 'FAKE01', udid: 'R5CY01', usb: '1-1.4.2' },
      ]).size,
    ).toBe(2);
    expect(
      conflictsOf([
        { serial: 'R5CY01', udid: 'R5CY01', usb: '1-1.4.3' },
        { serial: '10.0.0.2:5555', udid: 'R5CY01' },
      ]).size,
    ).toBe(0);
  });

  it('a serial adb lists more than once is in conflict, whatever its udid', () => {
    const conflicts = conflictsOf([{ serial: '0123456789ABCDEF', udid: '0123456789ABCDEF', sharedBy: 2 }]);
    expect(conflicts.get('0123456789ABCDEF')).toMatchObject({ kind: 'shared_serial', devices: 2 });
  });

  it('property: a udid claimed by two USB records, or by network records only, puts every claimant in conflict; a udid claimed once puts none', () => {
    const claim = fc.record({
      serial: fc.oneof(
        fc.stringMatching(/^[A-Z0-9]{4,8}$/),
        fc.integer({ min: 1, max: 9 }).map((n) => `10.0.0.${n}:5555`),
      ),
      udid: fc.option(fc.constantFrom('U1', 'U2', 'U3'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(claim, { selector: (c) => c.serial, maxLength: 8 }), (claims) => {
        const conflicts = conflictsOf(claims);
        for (const c of claims) {
          const same = claims.filter((o) => c.udid !== undefined && o.udid === c.udid);
          const usb = same.filter((o) => !o.serial.includes(':')).length;
          expect(conflicts.has(c.serial)).toBe(same.length > 1 && usb !== 1);
        }
      }),
    );
  });
});

describe('portRefusal: whether the port mapped to a device may be switched for it', () => {
  it('refuses the victim and the impostor alike while both give the udid', () => {
    const victim = { serial: '10.0.0.2:5555', udid: 'VICTIM01' };
    const impostor = { serial: '10.0.0.3:5555', udid: 'VICTIM01' };
    expect(portRefusal(victim, [victim, impostor], PORT, true)).toMatch(/give the udid VICTIM01/);
    expect(portRefusal(impostor, [victim, impostor], PORT, true)).toMatch(/give the udid VICTIM01/);
    expect(portRefusal(victim, [victim], PORT, true)).toBeUndefined();
  });

  it('a USB phone alone with the udid, found elsewhere on the USB tree (the victim unplugged): refused by its path', () => {
    const impostor = { serial: 'VICTIM01', udid: 'VICTIM01', usb: '1-1.3.1' };
    expect(portRefusal(impostor, [impostor], PORT, true)).toBe('adb finds it at usb:1-1.3.1, not behind hub 1-1.4 port 3');
    // An operator's own command names ports its own way: the path is not checked there.
    expect(portRefusal(impostor, [impostor], PORT, false)).toBeUndefined();
  });

  it('a USB phone behind its port may be switched; one whose path adb has not said yet may not', () => {
    const phone = { serial: 'R5CY01', udid: 'R5CY01', usb: '1-1.4.3' };
    expect(portRefusal(phone, [phone], PORT, true)).toBeUndefined();
    const unknown = { serial: 'R5CY01', udid: 'R5CY01' };
    expect(portRefusal(unknown, [unknown], PORT, true)).toMatch(/has not said where it is/);
  });

  it('a network phone is not switched for while another ready device has not said who it is: that one may be the phone it copies', () => {
    const impostor = { serial: '10.0.0.3:5555', udid: 'VICTIM01' };
    const unread = { serial: '10.0.0.2:5555', ready: true };
    expect(portRefusal(impostor, [impostor, unread], PORT, true)).toMatch(/a ready device has not said who it is yet \(10\.0\.0\.2:5555\)/);
    // A device adb does not list ready (unauthorized, offline) will not say: it does not hold the others back.
    expect(portRefusal(impostor, [impostor, { serial: '10.0.0.2:5555', ready: false }], PORT, true)).toBeUndefined();
    expect(portRefusal(impostor, [impostor, { ...unread, udid: 'OTHER001' }], PORT, true)).toBeUndefined();
  });

  it('the network twin of a USB phone is not switched for: the USB record is the phone the port belongs to', () => {
    const usb = { serial: 'R5CY01', udid: 'R5CY01', usb: '1-1.4.3' };
    const tcp = { serial: '10.0.0.2:5555', udid: 'R5CY01' };
    expect(portRefusal(tcp, [usb, tcp], PORT, true)).toMatch(/also given over USB/);
    expect(portRefusal(usb, [usb, tcp], PORT, true)).toBeUndefined();
  });
});

describe('behindPort: adb usb path against a uhubctl location', () => {
  it('holds the port itself and what hangs below it, on either bus of a USB 3 hub; not a neighbour', () => {
    expect(behindPort('1-1.4.3', PORT)).toBe(true);
    expect(behindPort('1-1.4.3.2', PORT)).toBe(true);
    expect(behindPort('2-1.4.3', PORT)).toBe(true);
    expect(behindPort('1-1.4.33', PORT)).toBe(false);
    expect(behindPort('1-1.4', PORT)).toBe(false);
    expect(behindPort('1-1.3.3', PORT)).toBe(false);
    expect(behindPort('1-4', { hub: '1', port: 4 })).toBe(true);
    expect(behindPort('1-4.1', { hub: '1', port: 4 })).toBe(true);
    expect(behindPort('1-14', { hub: '1', port: 4 })).toBe(false);
    expect(behindPort('garbage', PORT)).toBe(false);
  });

  it('property: a path is behind exactly the ports along its chain', () => {
    const chain = fc.array(fc.integer({ min: 1, max: 15 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), chain, chain, (bus, hubChain, below) => {
        const path = `${bus}-${[...hubChain, ...below].join('.')}`;
        for (let i = 0; i < hubChain.length + below.length; i++) {
          const all = [...hubChain, ...below];
          const hub = i === 0 ? String(bus) : `${bus}-${all.slice(0, i).join('.')}`;
          expect(behindPort(path, { hub, port: all[i]! })).toBe(true);
          expect(behindPort(path, { hub, port: all[i]! + 16 })).toBe(false);
        }
      }),
    );
  });
});
