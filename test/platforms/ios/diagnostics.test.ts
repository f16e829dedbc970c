import { describe, expect, it } from 'vitest';
import { batteryFromGasGauge, batteryFromIoRegistry } from '../../../src/platforms/ios/diagnostics.js';
import { decodePlist, type Dict } from '../../../src/platforms/ios/framing.js';
import { fixture } from '../../features/wear/section.js';

// The diagnostics relay's battery answers: the iPhone 14 Pro on iOS 26 and the
// iOS 12 GasGauge of test/features/wear/fixtures/SOURCES.md, as the relay
// wraps what idevicediagnostics prints ({"Status", "Diagnostics": ...}).

const answer = (name: string): Dict => ({ Status: 'Success', Diagnostics: decodePlist(Buffer.from(fixture(name))) });

describe("the relay's IORegistry battery entry", () => {
  it('iOS 26 nests the capacities in BatteryData: 950 cycles, 3075 of 3544 mAh (87 %); MaxCapacity 100 is no capacity', () => {
    expect(batteryFromIoRegistry(answer('iphone14pro-ios26-ioregistry.plist'))).toEqual({
      source: 'ioregistry',
      cycleCount: 950,
      fullMah: 3075,
      designMah: 3544,
      healthPercent: 87,
    });
  });

  it('the figures at the top of the entry, AppleRawMaxCapacity where NominalChargeCapacity is missing', () => {
    const top = { Status: 'Success', Diagnostics: { IORegistry: { CycleCount: 301, DesignCapacity: 1810, AppleRawMaxCapacity: 1520, MaxCapacity: 100 } } };
    expect(batteryFromIoRegistry(top)).toMatchObject({ cycleCount: 301, healthPercent: 84 });
  });

  it("an iPad's capacity read as 100 mAh (iDescriptor issue 133) is no capacity; an empty entry is nothing", () => {
    expect(batteryFromIoRegistry({ Diagnostics: { IORegistry: { CycleCount: 698, DesignCapacity: 7732, NominalChargeCapacity: 100 } } })).toEqual({
      source: 'ioregistry',
      cycleCount: 698,
    });
    expect(batteryFromIoRegistry({ Status: 'Success', Diagnostics: { IORegistry: {} } })).toBeUndefined();
    expect(batteryFromIoRegistry(undefined)).toBeUndefined();
  });
});

describe("the relay's GasGauge", () => {
  it('iOS 12.2 and later: the cycles only, FullChargeCapacity 100 being a percent (libimobiledevice issue 1068)', () => {
    expect(batteryFromGasGauge(answer('iphone-ios12-gasgauge-issue1068.plist'))).toEqual({ source: 'gasgauge', cycleCount: 425 });
    expect(batteryFromGasGauge(answer('iphone14pro-ios26-gasgauge.plist'))).toEqual({ source: 'gasgauge', cycleCount: 950 });
  });

  it('before iOS 12.2 FullChargeCapacity was mAh, and counts as such', () => {
    expect(batteryFromGasGauge({ Diagnostics: { GasGauge: { CycleCount: 425, DesignCapacity: 1751, FullChargeCapacity: 1500 } } })).toMatchObject({
      healthPercent: 86,
    });
  });
});
