// Whether the developer disk image is mounted, from mobile_image_mounter's
// answers as phones gave them (fixtures/developer-image/SOURCES.md names each).
import { readFileSync } from 'node:fs';
import * as plist from 'plist';
import { describe, expect, it } from 'vitest';
import { copyDevicesAnswer, imageTypeFor, lookupImageAnswer } from '../../../src/platforms/ios/developer-image.js';

type Dict = Record<string, unknown>;
const fixture = (name: string): Dict => plist.parse(readFileSync(new URL(`fixtures/developer-image/${name}`, import.meta.url), 'utf8')) as Dict;

describe('the image type a phone mounts', () => {
  it('the personalized image from iOS 17, the developer image before, nothing for a version that does not read', () => {
    expect(imageTypeFor('17.0')).toBe('Personalized');
    expect(imageTypeFor('26.1')).toBe('Personalized');
    expect(imageTypeFor('16.7.10')).toBe('Developer');
    expect(imageTypeFor('9.3.5')).toBe('Developer');
    expect(imageTypeFor(undefined)).toBeUndefined();
    expect(imageTypeFor('seventeen')).toBeUndefined();
    expect(imageTypeFor('17.0 beta')).toBeUndefined();
  });
});

describe('LookupImage', () => {
  it('a list of signatures with no Status (idevice #54): mounted', () => {
    expect(lookupImageAnswer(fixture('lookup-developer-mounted-idevice-54.plist'), '16.1')).toEqual({ state: 'mounted' });
  });

  it('an empty list (pymobiledevice3 #1815): not decided, CopyDevices is asked', () => {
    expect(lookupImageAnswer(fixture('lookup-personalized-empty-pymobiledevice3-1815.plist'), '27.0')).toEqual({ state: 'ask-copy-devices' });
  });

  it('ImagePresent false: not mounted; true: mounted', () => {
    expect(lookupImageAnswer(fixture('lookup-image-present-false.plist'), '12.4')).toEqual({ state: 'not-mounted' });
    expect(lookupImageAnswer({ ImagePresent: true }, '12.4')).toEqual({ state: 'mounted' });
  });

  it('no ImageSignature before iOS 14: not mounted; from iOS 14, or on a version that does not read: unknown', () => {
    const reply = fixture('lookup-before-ios14-no-signature.plist');
    expect(lookupImageAnswer(reply, '13.7')).toEqual({ state: 'not-mounted' });
    expect(lookupImageAnswer(reply, '17.2')).toMatchObject({ state: 'unknown' });
    expect(lookupImageAnswer(reply, undefined)).toMatchObject({ state: 'unknown' });
  });

  it('an Error (DeviceLocked, go-ios response_test): unknown, never "not mounted", the error quoted as data', () => {
    expect(lookupImageAnswer(fixture('error-device-locked-go-ios.plist'), '26.5.2')).toEqual({ state: 'unknown', why: 'LookupImage answered "DeviceLocked"' });
    const forged = lookupImageAnswer({ Error: 'x'.repeat(500) + '\nnot ready' }, '17.0');
    expect(forged.state).toBe('unknown');
    expect((forged as { why: string }).why.length).toBeLessThan(120);
    expect((forged as { why: string }).why).not.toContain('\n');
  });

  it('values of the wrong type: unknown', () => {
    expect(lookupImageAnswer({ ImageSignature: ['text'] }, '17.0')).toMatchObject({ state: 'unknown' });
    expect(lookupImageAnswer({ ImageSignature: 'text' }, '17.0')).toMatchObject({ state: 'unknown' });
    expect(lookupImageAnswer({ ImageSignature: new Uint8Array(3) }, '17.0')).toEqual({ state: 'mounted' });
  });
});

describe('CopyDevices, after an empty LookupImage list', () => {
  it('lists the personalized image (pymobiledevice3 #1815): mounted', () => {
    expect(copyDevicesAnswer(fixture('copydevices-personalized-pymobiledevice3-1815.plist'), 'Personalized')).toEqual({ state: 'mounted' });
  });

  it('an image of another type, or none: not mounted', () => {
    expect(copyDevicesAnswer(fixture('copydevices-personalized-pymobiledevice3-1815.plist'), 'Developer')).toEqual({ state: 'not-mounted' });
    expect(copyDevicesAnswer(fixture('copydevices-empty.plist'), 'Personalized')).toEqual({ state: 'not-mounted' });
  });

  it('a phone that does not know the command (UnknownCommand, or no EntryList): the empty list stands, not mounted', () => {
    expect(copyDevicesAnswer(fixture('error-unknown-command.plist'), 'Personalized')).toEqual({ state: 'not-mounted' });
    expect(copyDevicesAnswer({ Status: 'Complete' }, 'Personalized')).toEqual({ state: 'not-mounted' });
  });

  it('another Error, or an EntryList that is not a list: unknown', () => {
    expect(copyDevicesAnswer(fixture('error-device-locked-go-ios.plist'), 'Personalized')).toMatchObject({ state: 'unknown' });
    expect(copyDevicesAnswer({ EntryList: 'x' }, 'Personalized')).toMatchObject({ state: 'unknown' });
  });
});
