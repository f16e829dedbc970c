import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capacityOf, parseWearFiles } from '../../../../../src/platforms/android/inventory/parsers/wear-files.js';
import { fixture, wearFilesSection } from '../../../../features/wear/section.js';
import { propertyRuns } from '../../../../support/property-runs.js';

// The wear_files section on the recorded uevents of test/features/wear/fixtures/
// (SOURCES.md) and on what the kernel's sources print for the life-time files
// and cat for a file that is not there or not readable.

const supplyUnread = (text: string) => parseWearFiles(text).unread.filter((u) => u.what === 'power_supply');

describe('power_supply uevent', () => {
  it('reads cycles and capacity of a Xiaomi Mi 6 bms (151 cycles, 65 % of design)', () => {
    const r = parseWearFiles(wearFilesSection({ supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } }));
    expect(r.battery).toEqual({ source: 'sysfs', cycleCount: 151, fullMah: 2188, designMah: 3350, healthPercent: 65 });
    expect(supplyUnread(wearFilesSection({ supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } }))).toEqual([]);
  });

  it('reads the other Mi 6 battery (69 cycles, 98 %)', () => {
    const r = parseWearFiles(wearFilesSection({ supplies: { bms: fixture('mi6-sagit_atl-bms-uevent.txt') } }));
    expect(r.battery).toEqual({ source: 'sysfs', cycleCount: 69, fullMah: 3272, designMah: 3349, healthPercent: 98 });
  });

  it('takes the first supply that has a figure, in the order Google reads them (battery before bms)', () => {
    const battery = 'POWER_SUPPLY_NAME=battery\nPOWER_SUPPLY_CYCLE_COUNT=12\n';
    const r = parseWearFiles(wearFilesSection({ supplies: { battery, bms: fixture('mi6-c1_atl-bms-uevent.txt') } }));
    // The cycles from battery, the capacity from bms, which has both figures.
    expect(r.battery).toMatchObject({ cycleCount: 12, healthPercent: 65 });
  });

  it('a qpnp-bms uevent in mAh with no CHARGE_FULL tells no capacity, and no cycles: unread, not worn', () => {
    const r = parseWearFiles(wearFilesSection({ supplies: { bms: fixture('qpnp-bms-uevent-mah.txt') } }));
    expect(r.battery).toBeUndefined();
    expect(r.unread).toContainEqual({ what: 'power_supply', why: 'absent' });
  });

  it('a phone with none of the supplies: absent; one the shell may not read: unreadable; a value that is not a number: garbage', () => {
    expect(supplyUnread(wearFilesSection({}))).toEqual([{ what: 'power_supply', why: 'absent' }]);
    expect(supplyUnread(wearFilesSection({ supplies: { battery: { error: 'denied' } } }))).toEqual([{ what: 'power_supply', why: 'unreadable' }]);
    const garbage = parseWearFiles(wearFilesSection({ supplies: { battery: 'POWER_SUPPLY_CYCLE_COUNT=lots\n' } }));
    expect(garbage.battery).toBeUndefined();
    expect(garbage.unread).toContainEqual({ what: 'power_supply', why: 'garbage' });
  });

  it("a capacity that is no phone battery's (a gauge reporting 100, or 0) reads nothing", () => {
    expect(capacityOf(100, 3_350_000)).toBeUndefined();
    expect(capacityOf(0, 3_350_000)).toBeUndefined();
    expect(capacityOf(2_187_885, 3_350_000)).toEqual({ full: 2188, design: 3350 });
    // mAh where the driver prints mAh.
    expect(capacityOf(2100, 2350)).toEqual({ full: 2100, design: 2350 });
    expect(capacityOf(5, 7)).toBeUndefined();
  });

  it('never reads a worn battery from an output that names none: any text with no uevent figures is no battery', () => {
    fc.assert(
      fc.property(fc.string(), (junk) => {
        const text = junk.replace(/POWER_SUPPLY_/g, '');
        return parseWearFiles(text).battery === undefined;
      }),
      propertyRuns(300),
    );
  });
});

describe("storage life (the kernel's formats: mmc.c, ufs-sysfs.c)", () => {
  it('eMMC life_time takes the worse of type A and B as the upper end of its band, with pre-EOL', () => {
    const r = parseWearFiles(wearFilesSection({ life: { emmc: '0x02 0x05', emmc_eol: '0x02' } }));
    expect(r.storage).toEqual({ source: 'emmc', lifeUsedPercent: 50, preEol: 'warning' });
  });

  it('0x0B is past the rated life (100 %); 0x00 is not defined and reads nothing', () => {
    expect(parseWearFiles(wearFilesSection({ life: { emmc: '0x0b 0x01' } })).storage).toEqual({ source: 'emmc', lifeUsedPercent: 100 });
    const undefinedBands = parseWearFiles(wearFilesSection({ life: { emmc: '0x00 0x00' } }));
    expect(undefinedBands.storage).toBeUndefined();
    expect(undefinedBands.unread).toContainEqual({ what: 'storage life', why: 'garbage' });
  });

  it('UFS health descriptor, one estimation a file', () => {
    expect(parseWearFiles(wearFilesSection({ life: { ufs_a: '0x01', ufs_b: '0x03' } })).storage).toEqual({ source: 'ufs', lifeUsedPercent: 30 });
  });

  it('no life file: absent; denied: unreadable', () => {
    expect(parseWearFiles(wearFilesSection({})).unread).toContainEqual({ what: 'storage life', why: 'absent' });
    expect(parseWearFiles(wearFilesSection({ life: { ufs_a: { error: 'denied' } } })).unread).toContainEqual({ what: 'storage life', why: 'unreadable' });
  });
});

describe('/data/local/tmp', () => {
  it("the entries ls counted and du's total", () => {
    expect(parseWearFiles(wearFilesSection({ tmp: { entries: 41, kib: 2_097_152 } })).tmp).toEqual({ entries: 41, kib: 2_097_152 });
  });

  it('an ls that failed counts nothing: unreadable', () => {
    const r = parseWearFiles(wearFilesSection({ tmp: { entries: 1, status: 1 } }));
    expect(r.tmp).toBeUndefined();
    expect(r.unread).toContainEqual({ what: '/data/local/tmp', why: 'unreadable' });
  });

  it("a file named like the count line does not forge it: ls's own status line comes last", () => {
    const forged = 'tmp_entries:0 ls_status:0\n' + wearFilesSection({ tmp: { entries: 7 } });
    expect(parseWearFiles(forged).tmp).toEqual({ entries: 7 });
  });
});
