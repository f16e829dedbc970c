// What usb.kernelLog names, told by fstat of the open file: /dev/kmsg, a recording (a file or a pipe), or no kernel log
// at all (a directory, /dev/zero's endless bytes, a block device). Shared by the follower and the doctor.
import type { Stats } from 'node:fs';

export type LogSource =
  | { kind: 'kmsg' }
  | { kind: 'recording' }
  | { kind: 'stream' }
  /** `what`: what it is instead, in a few words ("a directory"). */
  | { kind: 'not-a-log'; what: string };

/** /dev/kmsg is character device 1:11 (Documentation/admin-guide/devices.txt), in a container's bind too. */
const KMSG = { major: 1, minor: 11 };

export function logSourceOf(stat: Pick<Stats, 'isDirectory' | 'isCharacterDevice' | 'isBlockDevice' | 'isFIFO' | 'isFile' | 'rdev'>): LogSource {
  if (stat.isFile()) return { kind: 'recording' };
  if (stat.isFIFO()) return { kind: 'stream' };
  if (stat.isDirectory()) return { kind: 'not-a-log', what: 'a directory' };
  if (stat.isCharacterDevice()) {
    const { major, minor } = deviceNumbers(stat.rdev);
    if (major === KMSG.major && minor === KMSG.minor) return { kind: 'kmsg' };
    return { kind: 'not-a-log', what: `a character device (${major}:${minor}) that is not /dev/kmsg (${KMSG.major}:${KMSG.minor})` };
  }
  if (stat.isBlockDevice()) return { kind: 'not-a-log', what: 'a block device' };
  return { kind: 'not-a-log', what: 'neither a file nor a device' };
}

/** Linux's encoding of a device number (include/linux/kdev_t.h, new_decode_dev). */
function deviceNumbers(rdev: number): { major: number; minor: number } {
  const major = Math.floor(rdev / 256) & 0xfff;
  const minor = (rdev & 0xff) | (Math.floor(rdev / 4096) & 0xfff00);
  return { major, minor };
}
