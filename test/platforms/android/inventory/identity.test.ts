import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectEmulator, identityFromProps } from '../../../../src/platforms/android/inventory/identity.js';
import { parseGetprop } from '../../../../src/platforms/android/inventory/parsers/getprop.js';
import { fixture } from './fixture.js';

const props = (name: string) => parseGetprop(fixture('getprop', name));

describe('identityFromProps', () => {
  it('Samsung Android 16: model code, brand, serial as udid', () => {
    const id = identityFromProps(props('samsung-sm-s936b-android16.txt'), 'R5CY743GDFY');
    expect(id).toMatchObject({
      udid: 'R5CY743GDFY',
      serialNumber: 'R5CY743GDFY',
      platformVersion: '16',
      modelName: 'SM-S936B',
      brandName: 'samsung',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
    });
  });

  it('a device reached over TCP keeps the udid of its own serial', () => {
    const id = identityFromProps(props('samsung-sm-s936b-android16.txt'), '192.168.1.20:5555');
    expect(id.udid).toBe('R5CY743GDFY');
  });

  it('Xiaomi: marketing name from ro.product.marketname', () => {
    const id = identityFromProps(props('xiaomi-poco-f6-android15.txt'), 'f89a5ec6');
    expect(id).toMatchObject({
      modelName: '24069PC21I',
      brandName: 'POCO',
      marketingName: 'POCO F6',
      platformVersion: '15',
      isEmulator: false,
    });
  });

  it('emulator: empty ro.serialno falls back to the adb serial; ranchu/qemu detected', () => {
    const id = identityFromProps(props('emulator-sdk-x86_64-android6.txt'), 'emulator-5554');
    expect(id).toMatchObject({
      udid: 'emulator-5554',
      serialNumber: 'emulator-5554',
      platformVersion: '6.0',
      modelName: 'Android SDK built for x86_64',
      cpuArchitecture: 'x86_64',
      isEmulator: true,
    });
  });

  it('HarmonyOS 2: the Android version is the platform version, not the HarmonyOS one', () => {
    const id = identityFromProps(props('huawei-mha-al00-harmonyos2.txt'), 'ABC');
    expect(id).toMatchObject({
      platformVersion: '9',
      brandName: 'HUAWEI',
      isEmulator: false,
    });
  });

  it('Honor: ro.product.model wins over the generic GSI system model', () => {
    const id = identityFromProps(props('honor-ebg-an10-android10.txt'), 'x');
    expect(id).toMatchObject({ modelName: 'EBG-AN10', brandName: 'HONOR', udid: 'TTNDU20416012813' });
  });

  it('ro.boot.serialno when ro.serialno is hidden', () => {
    const id = identityFromProps({ 'ro.serialno': '', 'ro.boot.serialno': 'B00T' }, 'adb');
    expect(id.udid).toBe('B00T');
  });

  it('no props: udid from adb, everything else unknown', () => {
    const id = identityFromProps({}, 'emulator-5556');
    expect(id.udid).toBe('emulator-5556');
    expect(id.modelName).toBeUndefined();
    expect(id.isEmulator).toBeUndefined();
  });

  it('never throws on arbitrary props', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.string()), fc.string(), (p, serial) => {
        const id = identityFromProps(p, serial);
        expect(typeof id.udid).toBe('string');
      }),
    );
  });
});

describe('detectEmulator', () => {
  it.each([
    [{ 'ro.boot.qemu': '1' }, true], // Android 12+ images
    [{ 'ro.hardware': 'goldfish' }, true],
    [{ 'ro.product.model': 'sdk_gphone64_x86_64' }, true],
    [{ 'ro.build.characteristics': 'nosdcard,emulator' }, true],
    // A release-signed phone that says "emulator" there (the Meizu PRO 5 dump in getprop/collect).
    [{ 'ro.build.characteristics': 'phone emulator', 'ro.build.type': 'user', 'ro.build.tags': 'release-keys' }, false],
    [{ 'ro.product.manufacturer': 'Genymotion', 'ro.hardware': 'vbox86' }, true],
    [{ 'ro.kernel.qemu': '0', 'ro.hardware': 'qcom' }, false],
  ])('%o → %s', (p, expected) => {
    expect(detectEmulator(p)).toBe(expected);
  });
});

describe('marketing names', () => {
  // Marketing property names and values as catalogued from real devices in
  // github.com/getActivity/DeviceCompat (DeviceMarketName.java comments); the
  // model codes beside them are invented filler.
  it.each([
    [
      { 'ro.product.model': 'PKR110', 'ro.vendor.oplus.market.enname': 'OnePlus Ace 5 Pro', 'ro.vendor.oplus.market.name': '一加 Ace 5 Pro' },
      'OnePlus Ace 5 Pro',
    ],
    [{ 'ro.product.model': 'V1936A', 'ro.vivo.internet.name': 'iQOO Neo 855', 'ro.vivo.market.name': 'iQOO Neo 855版' }, 'iQOO Neo 855'],
    [{ 'ro.product.model': 'EML-AL00', 'ro.config.marketing_name': 'HUAWEI P20' }, 'HUAWEI P20'],
    [{ 'ro.product.model': 'NX729J', 'ro.vendor.product.ztename': 'nubia Z50 Ultra' }, 'nubia Z50 Ultra'],
    [{ 'ro.product.model': 'ASUS_I005DA', 'ro.vendor.asus.product.mkt_name': 'ROG Phone 5' }, 'ROG Phone 5'],
  ])('%o → %s', (p, name) => {
    expect(identityFromProps(p, 's').marketingName).toBe(name);
  });
});

describe('more vendors (real dumps)', () => {
  it('OnePlus Nord N10 5G: marketing name from ro.display.series', () => {
    const id = identityFromProps(props('oneplus-nord-n10-android11.txt'), '90241ad3');
    expect(id).toMatchObject({
      udid: '90241ad3',
      modelName: 'BE2028',
      brandName: 'OnePlus',
      marketingName: 'OnePlus Nord N10 5G',
      platformVersion: '11',
      isEmulator: false,
    });
  });

  it('LG V60: no marketing prop, model stays the name', () => {
    const id = identityFromProps(props('lg-v60-android11.txt'), 'x');
    expect(id).toMatchObject({ udid: 'LMV600TM128a3837', modelName: 'LM-V600', brandName: 'lge', isEmulator: false });
    expect(id.marketingName).toBeUndefined();
  });
});
