// Android TV sets and boxes, from their owners' published getprop outputs
// (fixtures/getprop/tv, sources in fixtures/SOURCES.md): no battery, no
// radio, no serial on some. The agent reports what they say and invents
// nothing for what they do not.
import { describe, expect, it } from 'vitest';
import { assembleDeviceInfo } from '../../../../src/platforms/android/inventory/assemble.js';
import { parseGetprop } from '../../../../src/platforms/android/inventory/parsers/getprop.js';
import { fixture } from './fixture.js';
import { NOTHING_DISABLED } from './support.js';

const support = NOTHING_DISABLED;

const tv = (name: string) => fixture('getprop/tv', name);
const assemble = (adbSerial: string, props: string) =>
  assembleDeviceInfo({
    adbSerial,
    adbState: 'device',
    sections: new Map([['props', props]]),
    config: { addedToCloud: true, support },
  });

describe('Android TV recordings', () => {
  it('Konka Android TV 551 (Android 5.1.1): identity, no radio means an empty carrier list, and the adb serial where ro.serialno is empty', () => {
    const info = assemble('192.168.1.40:5555', tv('konka-android-tv-551-android5.1.1.txt'));
    expect(info).toMatchObject({
      // ro.serialno is [] on this set: the adb serial stands in.
      udid: '192.168.1.40:5555',
      platformVersion: '5.1.1',
      modelName: 'Konka Android TV 551',
      // Build.BRAND is the HiSilicon platform's, the maker is in ro.product.manufacturer.
      brandName: 'HiDPT',
      deviceName: 'Konka Android TV 551',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
      // ro.radio.noril=true: a known "no carrier", not a missing answer.
      telephony: { carriersInfo: [] },
    });
    // Nothing was read for these, so nothing is made up.
    for (const field of ['battery', 'storage', 'memory', 'resolution', 'isRooted', 'uptime'] as const) {
      expect(info[field], field).toBeUndefined();
    }
  });

  it('NVIDIA SHIELD (Android 11): a property whose value runs over four lines, and the keys after it', () => {
    const props = parseGetprop(tv('nvidia-shield-2019-android11-persist-excerpt.txt'));
    expect(props['persist.sys.boot.reason.history']).toBe('cold,946688424\ncold,946688425\ncold,946688423\nreboot,ota,1728776651');
    expect(props['persist.sys.dalvik.vm.lib.2']).toBe('libart.so');
    expect(props['persist.sys.nvidia.bom']).toBe('675128972561301H*');
    expect(props['persist.vendor.sys.NV_DISPXRES']).toBe('1920');
    // 34 lines, 31 property lines: every property is kept, none split in two.
    expect(Object.keys(props)).toHaveLength(31);
  });

  it('NVIDIA SHIELD: model, brand and ABI from the ro.product slice', () => {
    const info = assemble('1323219080123', tv('nvidia-shield-2019-android11-ro-product-excerpt.txt'));
    expect(info).toMatchObject({ modelName: 'SHIELD Android TV', brandName: 'NVIDIA', cpuArchitecture: 'arm64-v8a', isEmulator: false });
  });

  it('Fire TV Stick (SDK 22): its own serial, and a "Fire HD" camera prop that names no model', () => {
    const info = assemble('192.168.1.41:5555', tv('amazon-fire-tv-stick-aftt-grep.txt'));
    expect(info).toMatchObject({ udid: 'G070QQ0474470HT4', modelName: 'AFTT', brandName: 'Amazon', isEmulator: false });
    // The grep printed no SIM or radio props: telephony stays unknown rather than "no carrier".
    expect(info.telephony).toBeUndefined();
  });

  it('Mi Box 3: a box that does not say "tv" in ro.build.characteristics is still parsed, and flagged as nothing it does not say', () => {
    const props = parseGetprop(tv('xiaomi-mi-box-3-grep-tv.txt'));
    expect(props).toEqual({
      'ro.build.host': 'c3-mitv-bsp-build01.bj',
      'ro.com.google.clientidbase': 'android-xiaomi-tv',
      'service.bootvideo': '0',
    });
    const info = assemble('MIBOX3TEST', tv('xiaomi-mi-box-3-grep-tv.txt'));
    // The excerpt holds none of the properties the identity reads (the agent
    // keeps no others of a dump): no emulator verdict either way.
    expect(info.isEmulator).toBeUndefined();
    expect(info.telephony).toBeUndefined();
  });
});
