import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isImei,
  mobileDataState,
  parseParcelString,
  parseTelephonyRegistry,
  simSlots,
} from '../../../src/inventory/parsers/telephony.js';
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
  // Invented, in the line format of AOSP TelephonyRegistry.dump (two phones).
  const dualSim = ['last known state:', '  Phone Id=0', '  mDataConnectionState=0', '  Phone Id=1', '  mDataConnectionState=2'].join('\n');

  it('connected on any SIM means CONNECTED', () => {
    const registry = parseTelephonyRegistry(dualSim);
    expect(registry.dataStates).toEqual(['DISCONNECTED', 'CONNECTED']);
    expect(mobileDataState(registry)).toBe('CONNECTED');
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
