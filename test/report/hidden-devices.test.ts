import { describe, expect, it } from 'vitest';
import { HiddenDevicesCheck } from '../../src/report/hidden-devices.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { captureLogger } from '../log/capture.js';

const device = (udid: string, serialNumber = udid) => ({ udid, serialNumber }) as DeviceInfo;

describe('HiddenDevicesCheck: hiddenDevices entries that hide nothing (issue 61)', () => {
  it('names, once, an entry no listed device has, and one that is a device’s adb serial with its udid', () => {
    const log = captureLogger();
    const check = new HiddenDevicesCheck(['R58M12AB', 'NOSUCHPHONE', 'emulator-5554', 'NOSUCHPHONE'], log.logger);
    const listed = [device('R58M12AB'), device('EMU0001', 'emulator-5554'), device('PIXEL0003')];
    check.listed(listed);
    check.listed(listed);
    check.listed([]);
    const warnings = log.lines().filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.msg)).toEqual([
      'hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) names emulator-5554, the adb serial of the device whose udid is EMU0001: hiddenDevices takes udids, so it is not hidden. Write the udid instead',
      'hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) names NOSUCHPHONE, which no device on this host has (3 listed): it hides nothing here. Check each against the UDID column of device-agent list, or remove it if that phone left this host',
    ]);
  });

  it('says nothing when every entry names a listed device, or when there are none', () => {
    const log = captureLogger();
    new HiddenDevicesCheck(['R58M12AB'], log.logger).listed([device('R58M12AB')]);
    new HiddenDevicesCheck([], log.logger).listed([]);
    expect(log.lines().filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('names ten entries at most in its line, and counts the rest', () => {
    const log = captureLogger();
    new HiddenDevicesCheck(
      Array.from({ length: 25 }, (_, i) => `GONE${i}`),
      log.logger,
    ).listed([]);
    const [line] = log.lines().filter((l) => l.level === 'warn');
    expect(String(line!.msg)).toMatch(
      /^hiddenDevices \(DEVICE_AGENT_HIDDEN_DEVICES\) names GONE0, .*, GONE9 and 15 more, which no device on this host has \(0 listed\)/,
    );
  });
});
