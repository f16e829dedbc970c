import { STATUS_AVAILABLE, STATUS_UNAVAILABLE } from '../../../../src/cloud/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../../../src/platforms/android/inventory/probes/registry.js';
import type { Support } from '../../../../src/cloud/types.js';
import { assembleDeviceInfo, notReadyDeviceInfo, notReadyMessage } from '../../../../src/platforms/android/inventory/assemble.js';
import { fixture } from './fixture.js';

const support: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: true,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: true,
};
const config = { addedToCloud: true, support };

function sections(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

/** A ready device whose script printed just these sections. */
function assemble(entries: Record<string, string>, observedAtMs?: number) {
  return assembleDeviceInfo({ adbSerial: 's', adbState: 'device', sections: sections(entries), config, observedAtMs });
}

describe('assembleDeviceInfo', () => {
  it('identity fields of a ready Xiaomi', () => {
    const info = assembleDeviceInfo({
      adbSerial: 'f89a5ec6',
      adbState: 'device',
      sections: sections({ props: fixture('getprop', 'xiaomi-poco-f6-android15.txt') }),
      config,
    });
    expect(info).toMatchObject({
      udid: 'f89a5ec6',
      serialNumber: 'f89a5ec6',
      state: 'device',
      status: STATUS_AVAILABLE,
      platformName: 'ANDROID',
      platformVersion: '15',
      modelName: '24069PC21I',
      brandName: 'POCO',
      deviceName: 'POCO F6',
      cpuArchitecture: 'arm64-v8a',
      isAndroid: true,
      isIos: false,
      isEmulator: false,
      addedToCloud: true,
      support,
    });
    expect(info).not.toHaveProperty('message');
    // isHidden is the report's word (src/report/decorate.ts), never the inventory's.
    expect(info).not.toHaveProperty('isHidden');
  });

  it('the user-set device name wins over the marketing name', () => {
    const info = assembleDeviceInfo({
      adbSerial: 'f89a5ec6',
      adbState: 'device',
      sections: sections({
        props: fixture('getprop', 'xiaomi-poco-f6-android15.txt'),
        device_name: 'Lab phone 7\n',
      }),
      config,
    });
    expect(info.deviceName).toBe('Lab phone 7');
  });

  it('an unset name ("null") falls through to the model', () => {
    const info = assembleDeviceInfo({
      adbSerial: 'emulator-5554',
      adbState: 'device',
      sections: sections({
        props: fixture('getprop', 'emulator-sdk-x86_64-android6.txt'),
        device_name: 'null',
        bluetooth_name: 'null',
      }),
      config,
    });
    expect(info.deviceName).toBe('Android SDK built for x86_64');
    expect(info.isEmulator).toBe(true);
  });

  it('root: su listed, or a uid 0 shell; not rooted when neither', () => {
    const base = { props: '[ro.secure]: [1]' };
    const run = (extra: Record<string, string>) => assemble({ ...base, ...extra }).isRooted;
    const noSu = 'ls: /system/bin/su: No such file or directory\nls: /sbin/su: Permission denied';
    const shell = 'uid=2000(shell) gid=2000(shell) groups=2000(shell) context=u:r:shell:s0';
    expect(run({ id: shell, su: noSu })).toBe(false);
    expect(run({ id: 'uid=0(root) gid=0(root) context=u:r:su:s0', su: noSu })).toBe(true);
    expect(run({ id: shell, su: 'lrwxrwxrwx 1 root root 7 2024-01-01 00:00 /system/bin/su -> ./magisk' })).toBe(true);
    expect(run({})).toBeUndefined();
  });

  it('without any section: identity from the adb serial, no exception', () => {
    const info = assembleDeviceInfo({ adbSerial: 'abc', adbState: 'device', sections: new Map(), config });
    expect(info).toMatchObject({ udid: 'abc', status: STATUS_AVAILABLE, isAndroid: true });
    expect(info.modelName).toBeUndefined();
  });

  it('never throws on arbitrary sections', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...PROBES.map((p) => p.section)), fc.string()), (entries) => {
        assemble(entries);
      }),
    );
  });
});

describe('resolution', () => {
  it('a density without a size says nothing about the panel', () => {
    expect(assemble({ wm_density: fixture('wm', 'density-honor-override.txt') }).resolution).toBeUndefined();
  });

  it('a size without a density has no projection', () => {
    expect(assemble({ wm_size: fixture('wm', 'size-redmi-note1-noise.txt') }).resolution).toEqual({ width: 720, height: 1280 });
  });
});

describe('uptime and bootTime', () => {
  const uptime = fixture('uptime', 'proc-uptime-goadb-8core.txt'); // "52784.18 409860.90"
  const withUptime = (observedAtMs?: number) => assemble({ uptime: uptime }, observedAtMs);

  it('dates the boot by the host clock when the output arrived, to the second', () => {
    const observedAtMs = Date.UTC(2026, 10, 21, 12, 0, 0, 500);
    expect(withUptime(observedAtMs).uptime).toBe(52784);
    // 2026-11-21T12:00:00.5Z is 1795262400.5; minus 52784.18 s is 1795209616.32.
    expect(withUptime(observedAtMs).bootTime).toBe(1795209616);
  });

  it('no arrival time, no bootTime', () => {
    expect(withUptime()).toMatchObject({ uptime: 52784 });
    expect(withUptime().bootTime).toBeUndefined();
  });
});

describe('notReadyDeviceInfo', () => {
  it.each([
    ['unauthorized', /accept the "Allow USB debugging" prompt/],
    ['offline', /reconnect/],
    ['recovery', /recovery mode/],
    ['sideload', /sideload/],
    ['bootloader', /bootloader/],
    ['no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]', /udev rule/],
    ['connecting', /connecting/],
    ['authorizing', /authoriz/],
    ['host', /host/],
  ])('%s tells the operator what to do', (state, pattern) => {
    const info = notReadyDeviceInfo('R5CY743GDFY', state);
    expect(info).toMatchObject({ udid: 'R5CY743GDFY', state, status: STATUS_UNAVAILABLE, isAndroid: true });
    expect(info.message).toMatch(pattern);
  });

  it('keeps the udid learnt on an earlier connection', () => {
    expect(notReadyDeviceInfo('192.168.1.20:5555', 'offline', 'R5CY743GDFY').udid).toBe('R5CY743GDFY');
  });

  it('a phone reached over the network is not sent to a USB cable: offline and connecting name its network', () => {
    for (const state of ['offline', 'connecting']) {
      expect(notReadyMessage(state, 'R58M1234')).toMatch(/cable/);
      const network = notReadyMessage(state, '10.0.0.7:5555');
      expect(network).not.toMatch(/cable/);
      expect(network).toMatch(/over the network/);
    }
    expect(notReadyDeviceInfo('10.0.0.7:5555', 'offline').message).toMatch(/^The device does not answer adb over the network: check that it is on/);
    expect(notReadyDeviceInfo('R58M1234', 'offline').message).toMatch(/reconnect the USB cable/);
  });

  it('an unknown state still gets a message', () => {
    expect(notReadyMessage('weird')).toContain('"weird"');
    expect(notReadyMessage('')).toContain('"unknown"');
  });
});

describe('isRooted evidence', () => {
  it('ro.secure=0 without a uid 0 shell is not root (Konka Android 5.1 TV behaviour)', () => {
    const info = assembleDeviceInfo({
      adbSerial: 's',
      adbState: 'device',
      sections: sections({
        props: '[ro.secure]: [0]\n[ro.debuggable]: [1]\n[service.adb.root]: [1]\n',
        // `id` of a car head unit's adb shell (github.com/ezhigval/chery_tiggo_8PMN_Renesas, REVERSE_ENGINEERING_REPORT.md), first two lines.
        id: 'uid=2000(shell) gid=2000(shell)\ngroups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid)',
        su: 'ls: /system/bin/su: No such file or directory',
      }),
      config,
    });
    expect(info.isRooted).toBe(false);
  });
});

describe('proxy', () => {
  const run = (text: string) => assemble({ proxy: text }).networkReachability?.proxy;

  it('set, unset, and unknown when settings failed', () => {
    expect(run('proxy.lab:3128\n')).toBe(true);
    expect(run('null\n')).toBe(false);
    expect(run(':0\n')).toBe(false);
    expect(run('timeout: exec settings: No such file or directory\n')).toBeUndefined();
  });
});

describe('battery', () => {
  it('the contract gets its six figures; the wear figures and the charger go beside, dated, never in the battery object', () => {
    const info = assemble({ battery: fixture('battery', 'samsung-galaxy-a35-sm-a356e-android16.txt') }, 1_755_000_000_000);
    expect(info.battery).toEqual({ status: 'NOT_CHARGING', temperature: 33, voltage: 4338, health: 'GOOD', technology: 'Li-ion', percentage: '95' });
    expect(info.batteryDetail).toEqual({ externalPower: true, cycleCount: 619, healthPercent: 86, observedAtMs: 1_755_000_000_000 });
  });

  it('the charger of a Xiaomi on fast charging; none of it for a service that prints no such line', () => {
    expect(assemble({ battery: fixture('battery', 'xiaomi-redmi-note14-hyperos3.txt') }).batteryDetail).toEqual({
      externalPower: true,
      chargerMillivolts: 11000,
    });
    expect(assemble({ battery: 'Current Battery Service state:\n  level: 50\n' })).not.toHaveProperty('batteryDetail');
  });
});
