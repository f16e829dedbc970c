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
    c.check(parseDevicesLong(twoAlike.split('\n').filter((l) => !l.includes('1-1.3')).join('\n')));
    expect(c.duplicates.size).toBe(0);
    expect(lines().filter((l) => /only one device has the serial/.test(String(l.msg)))).toHaveLength(1);
  });
});
