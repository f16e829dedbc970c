import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedByHealthd, parseBattery } from '../../../../../src/platforms/android/inventory/parsers/battery.js';
import { fixture } from '../fixture.js';

describe('parseBattery', () => {
  it('Samsung: AOSP keys, vendor lines ignored', () => {
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
    });
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
    const text = fixture('battery', 'appium-adb-133-no-voltage-no-temperature.txt').replace('present: true', 'present: false').replace('voltage: 0', 'voltage: 5000');
    expect(parseBattery(text)).toEqual({ status: 'CHARGING', present: false, acPowered: true, usbPowered: false, wirelessPowered: false });
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
