import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGetprop } from '../../../../../src/platforms/android/inventory/parsers/getprop.js';
import {
  imeisFromProps,
  isImei,
  meidFromProps,
  mobileDataState,
  parseParcelString,
  parseTelephonyRegistry,
  simSlots,
} from '../../../../../src/platforms/android/inventory/parsers/telephony.js';
import { fixture } from '../fixture.js';

describe('parseParcelString', () => {
  it('decodes the IMEI of an Android 5 device', () => {
    expect(parseParcelString(fixture('telephony', 'iphonesubinfo-1-android5.txt'))).toBe('860955027785041');
  });

  it('decodes the reference parcel quoted by Chromium devil', () => {
    expect(parseParcelString(fixture('telephony', 'iphonesubinfo-1-devil.txt'))).toBe('353626072090389');
  });

  it('decodes the IMEI of the parcel posted in the adbkit issue', () => {
    expect(parseParcelString(fixture('telephony', 'iphonesubinfo-1-adbkit-issue.txt'))).toBe('355490069927394');
  });

  it('a real refusal on Android 10 (SecurityException parcel, status ffffffff) gives undefined', () => {
    const refused = fixture('telephony', 'iphonesubinfo-1-refused-redmi10x-android10.txt');
    expect(parseParcelString(refused)).toBeUndefined();
    // The message is a String16 too: only the status word keeps it from being read as a value.
    expect(parseParcelString(refused.replace('ffffffff 00000058', '00000000 00000058'))).toMatch(/^getDeviceId: The user 10240 does not meet/);
  });

  it('an exception parcel (Android 10+ denies the shell) gives undefined (invented)', () => {
    const denied = [
      'Result: Parcel(',
      "  0x00000000: ffffffe0 00000020 00650052 00750071 '.... ...R.e.q.u.'",
      "  0x00000010: 00720069 00730065 00520020 00410045 'i.r.e.s. .R.E.A.')",
    ].join('\n');
    expect(parseParcelString(denied)).toBeUndefined();
    expect(parseParcelString("Result: Parcel(00000000 ffffffff   '........')")).toBeUndefined();
    expect(parseParcelString('service: not found')).toBeUndefined();
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseParcelString(`Result: Parcel(\n${text}`)));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff })), (words) => {
        const rows = words.map((w, i) => `  0x${(i * 16).toString(16).padStart(8, '0')}: ${w.toString(16).padStart(8, '0')} '....'`);
        parseParcelString(`Result: Parcel(\n${rows.join('\n')})`);
      }),
    );
  });
});

describe('isImei', () => {
  it('accepts 14-16 digits only', () => {
    expect(isImei('860955027785041')).toBe(true);
    expect(isImei('A1000012345678')).toBe(false);
    expect(isImei(undefined)).toBe(false);
  });
});

describe('telephony registry', () => {
  // Whole dumps from adb bugreports of dual-SIM phones (fixtures/SOURCES.md).
  it('a second SIM with data connected makes the device CONNECTED (Smartron T5911, Android 8.1)', () => {
    const registry = parseTelephonyRegistry(fixture('telephony', 'registry-smartron-t5911-android8.1.txt'));
    expect(registry.dataStates).toEqual(['UNKNOWN', 'CONNECTED']);
    expect(mobileDataState(registry)).toBe('CONNECTED');
  });

  it('a SIM with data off in slot 1, slot 2 empty (vivo X9, Android 7.1.2)', () => {
    const registry = parseTelephonyRegistry(fixture('telephony', 'registry-vivo-x9-android7.1.2.txt'));
    expect(registry.dataStates).toEqual(['DISCONNECTED', 'UNKNOWN']);
    expect(mobileDataState(registry)).toBe('DISCONNECTED');
  });

  it('no SIM in either slot, and a single-slot phone without SIM, are UNKNOWN', () => {
    expect(parseTelephonyRegistry(fixture('telephony', 'registry-meizu-mx6-android7.1.1.txt')).dataStates).toEqual(['UNKNOWN', 'UNKNOWN']);
    expect(mobileDataState(parseTelephonyRegistry(fixture('telephony', 'registry-pixel-sailfish-android10.txt')))).toBe('UNKNOWN');
  });

  it('reads the one phone of a real dump (eSIM device, 2019 blog recording)', () => {
    const registry = parseTelephonyRegistry(fixture('telephony', 'registry-esim-qualcomm-one-phone.txt'));
    // "mDataConnectionState=0" once; mDataConnectionPossible/Reason/Apn must not count.
    expect(registry.dataStates).toEqual(['DISCONNECTED']);
    expect(mobileDataState(registry)).toBe('DISCONNECTED');
  });

  it('-1 (no service) is UNKNOWN; no lines means no state', () => {
    expect(mobileDataState(parseTelephonyRegistry('  mDataConnectionState=-1'))).toBe('UNKNOWN');
    expect(mobileDataState(parseTelephonyRegistry("Can't find service: telephony.registry"))).toBeUndefined();
  });

  it('sim slots from gsm.sim.state (Xiaomi dual SIM)', () => {
    expect(simSlots('LOADED,LOADED')).toEqual(['LOADED', 'LOADED']);
    expect(simSlots('')).toEqual([]);
  });
});

describe('IMEI and MEID from vendor props', () => {
  const props = (name: string) => parseGetprop(fixture('getprop/collect', `${name}.txt`));

  it('Xiaomi 14 (HyperOS, Android 15): one IMEI per slot and the MEID, where the shell may not call iphonesubinfo', () => {
    const xiaomi = props('hyperos-android15-xiaomi-14');
    expect(imeisFromProps(xiaomi)).toEqual(['864795062704846', '864795062704853']);
    expect(meidFromProps(xiaomi)).toBe('99002055135242');
  });

  it('Redmi 8A (MIUI, Android 10): the ro.ril.oem pair', () => {
    expect(imeisFromProps(props('miui-android10-redmi-8a'))).toEqual(['863938054824872', '863938054824880']);
  });

  it('Meizu PRO 5 (Flyme, Android 7.0): the comma list in ril.gsm.imei', () => {
    expect(imeisFromProps(props('flyme-android7.0-meizu-pro5'))).toEqual(['867905023440326', '867905023440334']);
  });

  it('phones that publish none (Samsung, Pixel) give no IMEI and no MEID', () => {
    for (const name of ['oneui-android14-galaxy-s24', 'google-android15-pixel6']) {
      expect(imeisFromProps(props(name)), name).toEqual([]);
      expect(meidFromProps(props(name)), name).toBeUndefined();
    }
  });

  it('placeholders are not identifiers (invented values)', () => {
    expect(imeisFromProps({ 'ril.gsm.imei': ',' })).toEqual([]);
    expect(imeisFromProps({ 'ro.ril.oem.imei1': '', 'ro.ril.oem.imei2': '864795062704853' })).toEqual(['', '864795062704853']);
    expect(meidFromProps({ 'persist.sys.meid': '+MEID:', 'ro.ril.oem.meid': '0' })).toBeUndefined();
  });
});
