import { describe, expect, it } from 'vitest';
import { ADB_DOCTOR } from '../../../src/platforms/android/doctor.js';
import { batteryItems } from '../../../src/features/health/battery-doctor.js';
import { fixture } from '../../platforms/android/inventory/fixture.js';
import { shippedHealth } from './defaults.js';

const items = (name: string, settings = shippedHealth) => batteryItems('R1', ADB_DOCTOR.battery(fixture('battery', name)), settings);

describe('batteryItems', () => {
  it('one warning per battery problem the recording shows, with what to do', () => {
    expect(items('aosp-android14-overheat.txt')).toEqual([
      {
        id: 'phone.battery',
        phone: 'R1',
        status: 'warn',
        finding: 'device R1: battery unhealthy',
        advice: expect.stringMatching(/^the phone reports its battery health as OVERHEAT: unplug it/),
      },
    ]);
    expect(items('xiaomi-redmi-note14-hyperos3.txt')).toEqual([
      {
        id: 'phone.battery',
        phone: 'R1',
        status: 'warn',
        finding: 'device R1: charging voltage high',
        advice: expect.stringMatching(/^the charger offers 11\.0 V \(limit 6\.0 V\)/),
      },
    ]);
    // The 2016 Samsung: ASOC 77 % and 1764 cycles, worn: wear's to judge (test/features/wear/doctor.test.ts), not health's.
    expect(items('samsung-2016-battery-tistory-usb-charging.txt').map((i) => i.status)).toEqual(['ok']);
  });

  it('one ok line for a healthy battery, and for the held-full phone (one look cannot time it); unread for no figures', () => {
    for (const name of ['pixel-c-dragon-android7-ac-5v.txt', 'samsung-oneui.txt', 'samsung-galaxy-a35-sm-a356e-android16.txt'])
      expect(items(name)).toEqual([
        { id: 'phone.battery', phone: 'R1', status: 'ok', finding: expect.stringMatching(/^device R1: battery \d+ %, [\d.]+ °C$/) },
      ]);
    expect(batteryItems('R1', ADB_DOCTOR.battery("Can't find service: battery\n"), shippedHealth)).toEqual([
      { id: 'phone.battery', phone: 'R1', status: 'unread', finding: 'its battery service printed no figures' },
    ]);
  });

  it('follows the settings', () => {
    expect(items('xiaomi-redmi-note14-hyperos3.txt', { ...shippedHealth, chargingVoltageMaxMillivolts: 0 }).map((i) => i.status)).toEqual(['ok']);
  });
});
