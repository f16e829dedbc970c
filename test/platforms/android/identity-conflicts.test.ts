import { describe, expect, it } from 'vitest';
import { parseDevicesLong } from '../../../src/platforms/android/adb/devices-long.js';
import { IdentityConflicts } from '../../../src/platforms/android/identity-conflicts.js';
import { captureLogger } from '../../log/capture.js';

// Two low-cost phones that both say 0123456789ABCDEF: adb's long listing shows
// each with its own usb path and transport, and nothing else can tell them
// apart. (The line format is adb's own: "%-22s %s" then the fields.)
const twoAlike = [
  'List of devices attached',
  '0123456789ABCDEF       device usb:1-1.2 product:full_k61v1 model:A1 device:k61v1 transport_id:3',
  '0123456789ABCDEF       device usb:1-1.3 product:full_k61v1 model:A1 device:k61v1 transport_id:4',
  'R58M12ABCDE            device usb:1-1.4 product:beyond1 model:SM_G973F device:beyond1 transport_id:5',
].join('\n');

describe('IdentityConflicts', () => {
  it('names phones that share a serial in one warning while it lasts, and says when it is over', () => {
    const { logger, lines } = captureLogger();
    const c = new IdentityConflicts(logger);
    for (let i = 0; i < 3; i++) c.check(parseDevicesLong(twoAlike));
    expect([...c.duplicates]).toEqual([['0123456789ABCDEF', 2]]);
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toMatch(/2 devices share the serial 0123456789ABCDEF \(at 1-1\.2, 1-1\.3\)/);
    c.check(
      parseDevicesLong(
        twoAlike
          .split('\n')
          .filter((l) => !l.includes('1-1.3'))
          .join('\n'),
      ),
    );
    expect(c.duplicates.size).toBe(0);
    expect(lines().filter((l) => /only one device has the serial/.test(String(l.msg)))).toHaveLength(1);
  });
});

describe('IdentityConflicts.checkUdids', () => {
  const phone = (serial: string, udid: string, bootTime?: number) => ({
    serial,
    info: {
      udid,
      serialNumber: udid,
      state: 'device' as const,
      status: 'AVAILABLE' as const,
      platformName: 'ANDROID',
      isAndroid: true,
      isIos: false,
      bootTime,
    },
  });

  it('a phone on USB and over TCP at once is one phone; two boots apart, or two on USB, are two', () => {
    const { logger, lines } = captureLogger();
    const c = new IdentityConflicts(logger);
    c.checkUdids([phone('R58M1', 'R58M1', 1_000), phone('10.0.0.5:5555', 'R58M1', 1_001)]);
    c.checkUdids([phone('10.0.0.6:5555', 'TWIN', 5_000), phone('10.0.0.7:5555', 'TWIN', 5_030)]);
    expect(c.sharedUdids.size).toBe(0);
    c.checkUdids([phone('10.0.0.6:5555', 'CLASH', 5_000), phone('10.0.0.7:5555', 'CLASH', 90_000)]);
    expect([...c.sharedUdids]).toEqual([['CLASH', ['10.0.0.6:5555', '10.0.0.7:5555']]]);
    c.checkUdids([phone('10.0.0.6:5555', 'CLASH', 5_000), phone('10.0.0.7:5555', 'CLASH', 90_000)]);
    c.checkUdids([phone('USB1', 'SAME'), phone('USB2', 'SAME')]);
    expect([...c.sharedUdids.keys()]).toEqual(['SAME']);
    const warnings = lines()
      .filter((l) => l.level === 'warn')
      .map((l) => String(l.msg));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/2 different phones \(adb serials 10\.0\.0\.6:5555, 10\.0\.0\.7:5555\) give the udid CLASH/);
    expect(lines().filter((l) => /only one phone gives the udid CLASH again/.test(String(l.msg)))).toHaveLength(1);
  });
});
