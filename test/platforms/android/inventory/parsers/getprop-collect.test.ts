// Identity across vendors and Android 5 to 16, on whole `adb shell getprop`
// dumps that phone owners sent to github.com/getActivity/AndroidSystemPropertyCollect
// (sources in fixtures/SOURCES.md). Each contributor named the file after the
// phone's skin and Android version, so `android` below comes from outside the
// dump; the other expected values are read off the dump by hand.
import { describe, expect, it } from 'vitest';
import { parseGetprop } from '../../../../../src/platforms/android/inventory/parsers/getprop.js';
import { identityFromProps } from '../../../../../src/platforms/android/inventory/identity.js';
import { fixture } from '../fixture.js';

interface Expected {
  /** "Android X" of the contributor's file name. */
  android: string;
  brand: string;
  model: string;
  /** Vendor marketing name, where the dump has one. */
  marketing?: string;
  abi?: string;
}

const DUMPS: Record<string, Expected> = {
  'flyme-android5.1-meizu-mx5': { android: '5.1', brand: 'Meizu', model: 'MX5' },
  'smartisan-android5.1.1-yq601': { android: '5.1.1', brand: 'SMARTISAN', model: 'YQ601', abi: 'armeabi-v7a' },
  'coloros-android6.0.1-oppo-a57': { android: '6.0.1', brand: 'OPPO', model: 'OPPO A57' },
  'eui-android6.0-leeco-le2-pro': { android: '6.0', brand: 'LeEco', model: 'Le X620' },
  'mifavor-android6.0.1-zte-a2017': { android: '6.0.1', brand: 'ZTE', model: 'ZTE A2017' },
  'flyme-android7.0-meizu-pro5': { android: '7.0', brand: 'Meizu', model: 'PRO 5' },
  'miui-android7.1.2-redmi-5a': { android: '7.1.2', brand: 'Xiaomi', model: 'Redmi 5A' },
  'zui-android8.0-moto-e5-plus': { android: '8.0', brand: 'motorola', model: 'XT1924-9', marketing: 'moto e⁵ plus' },
  'emui-android8.0-huawei-nova2': { android: '8.0', brand: 'HUAWEI', model: 'PIC-AL00', marketing: 'HUAWEI nova 2' },
  'funtouch-android8.1-vivo-y85a': { android: '8.1', brand: 'vivo', model: 'vivo Y85A' },
  'oneui-android9-galaxy-s8': { android: '9', brand: 'samsung', model: 'SM-G9500' },
  'oxygenos-android9-oneplus-5t': { android: '9', brand: 'OnePlus', model: 'ONEPLUS A5010', marketing: 'OnePlus 5T' },
  'emui-android9-huawei-p30': { android: '9', brand: 'HUAWEI', model: 'ELE-AL00', marketing: 'HUAWEI P30' },
  'harmonyos3-android10-honor-20s': {
    android: '10',
    brand: 'HONOR',
    model: 'YAL-AL50',
    marketing: 'HONOR 20S',
  },
  'miui-android10-redmi-8a': { android: '10', brand: 'Xiaomi', model: 'Redmi 8A', abi: 'armeabi-v7a' },
  'magicui-android10-honor-v30': { android: '10', brand: 'HONOR', model: 'OXF-AN00', marketing: 'HONOR V30' },
  'realmeui-android11-realme-gt-neo2t': { android: '11', brand: 'realme', model: 'RMX3357', marketing: 'realme GT Neo2T' },
  'h2os-android11-oneplus-6': { android: '11', brand: 'OnePlus', model: 'ONEPLUS A6000', marketing: 'OnePlus 6' },
  'myui-android12-moto-edge-s30': { android: '12', brand: 'motorola', model: 'XT2175-2', marketing: 'motorola edge S30' },
  'harmonyos4.2-android12-huawei-mate30-pro': {
    android: '12',
    brand: 'HUAWEI',
    model: 'LIO-AL00',
    marketing: 'HUAWEI Mate 30 Pro',
  },
  'zui-android12-lenovo-legion-phone2-pro': {
    android: '12',
    brand: 'Lenovo',
    model: 'Lenovo L70081',
    marketing: 'Legion Phone2 Pro',
  },
  'oneui-android13-galaxy-tab-s7plus': { android: '13', brand: 'samsung', model: 'SM-T970' },
  'rogui-android13-asus-rog-phone5': { android: '13', brand: 'asus', model: 'ASUS_I005DA', marketing: 'ROG Phone 5' },
  'magicos-android13-honor-x30': { android: '13', brand: 'HONOR', model: 'ANY-AN00', marketing: '荣耀X30' },
  'oneui-android14-galaxy-s24': { android: '14', brand: 'samsung', model: 'SM-S9210' },
  'originos-android14-vivo-iqoo-z6': { android: '14', brand: 'vivo', model: 'V2220A', marketing: 'iQOO Z6' },
  'google-android15-pixel6': { android: '15', brand: 'google', model: 'Pixel 6' },
  'coloros-android15-oppo-find-x8-pro': { android: '15', brand: 'OPPO', model: 'PKC110', marketing: 'OPPO Find X8 Pro' },
  'hyperos-android15-xiaomi-14': { android: '15', brand: 'Xiaomi', model: '23127PN0CC', marketing: 'Xiaomi 14' },
  'lineageos-android16-moto-g84': { android: '16', brand: 'motorola', model: 'moto g84 5G' },
  'oneui-android16-galaxy-z-fold7': { android: '16', brand: 'samsung', model: 'SM-F9660' },
  'hyperos-android16-xiaomi-17-pro-max': {
    android: '16',
    brand: 'Xiaomi',
    model: '2509FPN0BC',
    marketing: 'Xiaomi 17 Pro Max',
  },
  'coloros-android16-oneplus-13t': { android: '16', brand: 'OnePlus', model: 'PKX110', marketing: 'OnePlus 13T' },
};

describe.each(Object.entries(DUMPS))('getprop of %s', (name, expected) => {
  const text = fixture('getprop/collect', `${name}.txt`);
  const props = parseGetprop(text);
  const id = identityFromProps(props, 'ADBSERIAL');

  it('parses every property the dump opens', () => {
    // A property line starts with "[key]: [" (after the \r of a pty or a Windows copy is gone).
    const opened = new Set(
      text
        .replace(/\r/g, '')
        .split('\n')
        .flatMap((line) => /^\[([^[\]\s]+)\]: \[/.exec(line)?.[1] ?? []),
    );
    expect(new Set(Object.keys(props))).toEqual(opened);
  });

  it('gives the Android version that the contributor named', () => {
    expect(id.platformVersion === expected.android || id.platformVersion?.startsWith(`${expected.android}.`)).toBe(true);
  });

  it('names the phone: brand, model, marketing name, ABI; a real phone, with its own serial', () => {
    expect(id).toMatchObject({
      brandName: expected.brand,
      modelName: expected.model,
      marketingName: expected.marketing,
      cpuArchitecture: expected.abi ?? 'arm64-v8a',
      isEmulator: false,
    });
    expect(id.serialNumber).not.toBe('ADBSERIAL');
  });
});
