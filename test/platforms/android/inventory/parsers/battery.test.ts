import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedByHealthd, onExternalPower, parseBattery } from '../../../../../src/platforms/android/inventory/parsers/battery.js';
import { fixture } from '../fixture.js';

describe('parseBattery', () => {
  it('Samsung: AOSP keys, its wear figures, other vendor lines ignored', () => {
    expect(parseBattery(fixture('battery', 'samsung-oneui.txt'))).toEqual({
      status: 'FULL',
      health: 'GOOD',
      technology: 'Li-ion',
      percentage: '100',
      temperature: 31,
      voltage: 4312,
      present: true,
      acPowered: false,
      usbPowered: true,
      wirelessPowered: false,
      // mSavedBatteryAsoc: 96, mSavedBatteryUsage: 132 (a lab phone held on USB: barely ever discharged).
      healthPercent: 96,
      cycleCount: 1,
    });
  });

  it('Samsung Galaxy A35 on Android 16: bracketed wear figures, ASOC before BSOH, "Max charging voltage: 0" is no reading', () => {
    expect(parseBattery(fixture('battery', 'samsung-galaxy-a35-sm-a356e-android16.txt'))).toEqual({
      status: 'NOT_CHARGING',
      health: 'GOOD',
      technology: 'Li-ion',
      percentage: '95',
      temperature: 33,
      voltage: 4338,
      present: true,
      acPowered: false,
      usbPowered: true,
      wirelessPowered: false,
      dockPowered: false,
      healthPercent: 86,
      cycleCount: 619,
    });
  });

  it('an older Samsung: wear figures without brackets', () => {
    expect(parseBattery(fixture('battery', 'samsung-2016-battery-tistory-usb-charging.txt'))).toMatchObject({
      status: 'CHARGING',
      usbPowered: true,
      healthPercent: 77,
      cycleCount: 1764,
    });
  });

  it('BSOH stands in where ASOC is missing; decimals are cut, figures out of 1..100 are no reading (invented)', () => {
    expect(parseBattery('  mSavedBatteryBsoh: 100.00\n').healthPercent).toBe(100);
    expect(parseBattery('  mSavedBatteryAsoc: [0]\n  mSavedBatteryBsoh: 91\n').healthPercent).toBe(91);
    expect(parseBattery('  mSavedBatteryAsoc: 130\n').healthPercent).toBeUndefined();
    expect(parseBattery('  mSavedBatteryUsage: [99]\n').cycleCount).toBe(0);
    expect(parseBattery('  mSavedBatteryUsage: [n/a]\n').cycleCount).toBeUndefined();
  });

  it('the charger voltage: microvolts to millivolts, from the AOSP, Pixel C and Xiaomi recordings', () => {
    expect(parseBattery(fixture('battery', 'aosp-android14-overheat.txt')).maxChargingVoltage).toBe(5000);
    expect(parseBattery(fixture('battery', 'pixel-c-dragon-android7-ac-5v.txt')).maxChargingVoltage).toBe(5000);
    expect(parseBattery(fixture('battery', 'xiaomi-redmi-note14-hyperos3.txt')).maxChargingVoltage).toBe(11000);
    // Below 1 V or above what USB PD offers (48 V) is no reading (invented).
    expect(parseBattery('  Max charging voltage: 999999\n').maxChargingVoltage).toBeUndefined();
    expect(parseBattery('  Max charging voltage: 48000001\n').maxChargingVoltage).toBeUndefined();
    expect(parseBattery('  Max charging voltage: 48000000\n').maxChargingVoltage).toBe(48000);
  });

  it('external power: any of the charger lines, undefined when the service prints none', () => {
    expect(onExternalPower(parseBattery(fixture('battery', 'samsung-galaxy-a35-sm-a356e-android16.txt')))).toBe(true);
    expect(onExternalPower(parseBattery(fixture('battery', 'pixel-c-dragon-android7-ac-5v.txt')))).toBe(true);
    expect(
      onExternalPower(parseBattery(fixture('battery', 'samsung-galaxy-a35-sm-a356e-android16.txt').replace('USB powered: true', 'USB powered: false'))),
    ).toBe(false);
    expect(onExternalPower(parseBattery('  level: 50\n'))).toBeUndefined();
  });

  it('Android 14: "Charging state" does not shadow status', () => {
    expect(parseBattery(fixture('battery', 'aosp-android14-overheat.txt'))).toMatchObject({
      status: 'NOT_CHARGING',
      health: 'OVERHEAT',
      percentage: '80',
      temperature: 18,
      voltage: 4200,
    });
  });

  it('Xiaomi HyperOS: "last voltage value sent" lines do not shadow voltage', () => {
    expect(parseBattery(fixture('battery', 'xiaomi-redmi-note14-hyperos3.txt'))).toEqual({
      status: 'CHARGING',
      health: 'GOOD',
      technology: 'Li-poly',
      percentage: '80',
      temperature: 36,
      voltage: 4228,
      present: true,
      acPowered: true,
      usbPowered: false,
      wirelessPowered: false,
      dockPowered: false,
      maxChargingVoltage: 11000,
    });
  });

  it('percentage honours a scale other than 100; no technology line leaves it out (invented)', () => {
    const reading = parseBattery('Current Battery Service state:\n  level: 5\n  scale: 10\n  temperature: -45\n');
    expect(reading).toEqual({ percentage: '50', temperature: -5 });
  });

  it('voltage reported in microvolts or volts becomes millivolts (invented)', () => {
    expect(parseBattery('  voltage: 4012000\n').voltage).toBe(4012);
    expect(parseBattery('  voltage: 4\n').voltage).toBe(4000);
  });

  it('an implausible voltage is left out, not guessed', () => {
    // "voltage: 13" as a dev board with a dummy battery prints it (http://ppmy.cn/news/1423084.html).
    expect(parseBattery('  voltage: 13\n').voltage).toBeUndefined();
    expect(parseBattery('  voltage: 65535\n').voltage).toBeUndefined();
  });

  it('voltage 0 and temperature 0 are no readings: neither is reported, the rest is', () => {
    expect(parseBattery(fixture('battery', 'appium-adb-133-no-voltage-no-temperature.txt'))).toEqual({
      status: 'CHARGING',
      health: 'GOOD',
      technology: 'Li-ion',
      percentage: '89',
      present: true,
      acPowered: true,
      usbPowered: false,
      wirelessPowered: false,
    });
  });

  it('a battery that is not present gives no figures, only the charger state (invented: present false)', () => {
    const text = fixture('battery', 'appium-adb-133-no-voltage-no-temperature.txt')
      .replace('present: true', 'present: false')
      .replace('voltage: 0', 'voltage: 5000');
    expect(parseBattery(text)).toEqual({ status: 'CHARGING', present: false, acPowered: true, usbPowered: false, wirelessPowered: false });
    // Nor wear figures (invented: the Samsung lines with present false).
    const samsung = fixture('battery', 'samsung-oneui.txt').replace('present: true', 'present: false');
    expect(parseBattery(samsung)).not.toHaveProperty('healthPercent');
    expect(parseBattery(samsung)).not.toHaveProperty('cycleCount');
  });

  it('an error text gives no fields', () => {
    expect(parseBattery("Can't find service: battery\n")).toEqual({});
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseBattery(text);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('level', 'scale', 'voltage', 'temperature', 'status'), fc.string())), (pairs) => {
        const reading = parseBattery(pairs.map(([k, v]) => `  ${k}: ${v}`).join('\n'));
        if (reading.percentage !== undefined) expect(Number(reading.percentage)).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});

describe('fixedByHealthd', () => {
  // healthd's rule (BatteryMonitor.cpp, AOSP system/core): the property is
  // read with strtol and any number but 0 fixes level 42 and 42.4 °C. Amlogic
  // set-top box trees set it to 42, Anbox and Bliss OS to 1.
  it.each([
    ['1', true],
    ['42', true],
    [' 42', true],
    ['-1', true],
    ['0', false],
    ['00', false],
    ['true', false],
    ['', false],
    [undefined, false],
  ])('ro.boot.fake_battery=%s: %s', (value, fixed) => {
    expect(fixedByHealthd(value)).toBe(fixed);
  });
});
