import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { rememberListed, type ListedPhone } from '../../../src/features/usb/off-adb.js';

// What the USB layer remembers of the phones it saw listed, over random
// listings of a small lab where udids and serials collide: a phone listed
// again under a new udid (a factory reset), clones sharing one serial
// (`0123456789ABCDEF`), UNPLUGGED entries, and now and then a flood of
// phones past the bound. rememberListed is checked against what it
// promises, not against a copy of itself.

const BOUND = 512;

interface Phone {
  udid: string;
  serial: string;
  unplugged: boolean;
  build: number;
}
const phone = fc.record({
  udid: fc.constantFrom('u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'),
  serial: fc.constantFrom('S0', 'S1', 'S2', 'S3', '0123456789ABCDEF'),
  unplugged: fc.boolean(),
  build: fc.nat(1000),
});
const device = (p: Phone): DeviceInfo => ({
  udid: p.udid,
  serialNumber: p.serial,
  state: p.unplugged ? 'no device' : 'device',
  status: p.unplugged ? 'UNPLUGGED' : 'AVAILABLE',
  platformName: 'ANDROID',
  platformVersion: String(p.build),
  isAndroid: true,
  isIos: false,
});
// A listing names each udid once, as a report does.
const listing = fc.uniqueArray(phone, { selector: (p) => p.udid, maxLength: 6 }).map((ps) => ps.map(device));
const flood = fc
  .integer({ min: BOUND - 20, max: BOUND + 40 })
  .map((n) => Array.from({ length: n }, (_, i): DeviceInfo => device({ udid: `flood-${i}`, serial: `F${i}`, unplugged: false, build: 0 })));
const listings = fc.array(fc.oneof({ weight: 12, arbitrary: listing }, { weight: 1, arbitrary: flood }), { minLength: 1, maxLength: 30 });

describe('rememberListed over random listings', () => {
  it('keeps at most 512; each phone listed now as listed, newest last; no other entry with one of their USB serials', () => {
    fc.assert(
      fc.property(listings, (all) => {
        const remembered = new Map<string, ListedPhone>();
        for (const present of all) {
          const before = [...remembered.keys()];
          rememberListed(remembered, present);
          const listed = present.filter((d) => d.status !== 'UNPLUGGED');
          expect(remembered.size).toBeLessThanOrEqual(BOUND);
          if (listed.length === 0) {
            // Nothing listed (every phone unplugged, or none): nothing forgotten.
            expect([...remembered.keys()]).toEqual(before);
            continue;
          }
          const kept = listed.slice(-BOUND);
          // Each phone listed now is remembered as this listing has it (who it is), and they are the most recent entries.
          // (Who it is written out here, not by listedPhone: a projection that lost a field would agree with itself.)
          expect([...remembered.values()].slice(-kept.length)).toEqual(
            kept.map((d) => ({ udid: d.udid, serialNumber: d.serialNumber, platformName: d.platformName })),
          );
          // An entry not listed now that gives the serial number a listed phone gives is that phone's old name: gone.
          const now = new Set(listed.map((d) => d.udid));
          const serialsNow = new Set(listed.map((d) => d.serialNumber));
          // One expect() for them all: one an entry was most of the file's time (1.6 s; vitest updates its assertion state on each call).
          const stale = [...remembered].filter(([udid, d]) => !now.has(udid) && serialsNow.has(d.serialNumber)).map(([udid]) => udid);
          expect(stale).toEqual([]);
        }
      }),
    );
  });

  it('forgets no phone while the lab holds fewer than 512 and no two of its phones share a USB serial', () => {
    // Each udid keeps its own serial (S and the udid) for the whole run; phones come and go off the listing and off
    // their ports. Two give as udid another's serial with a dash added (S-u0, Su-1): identities compared exactly, that is
    // no old name of it.
    const lab = fc.uniqueArray(fc.constantFrom('u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'S-u0', 'Su-1'), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(lab, { minLength: 1, maxLength: 30 }), (all) => {
        const remembered = new Map<string, ListedPhone>();
        const ever = new Set<string>();
        for (const udids of all) {
          rememberListed(
            remembered,
            udids.map((u) => device({ udid: u, serial: `S${u}`, unplugged: false, build: 0 })),
          );
          for (const u of udids) ever.add(u);
          expect(new Set(remembered.keys())).toEqual(ever);
        }
      }),
    );
  });
});
