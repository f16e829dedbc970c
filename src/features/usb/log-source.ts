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
export function logSourceOf(stat: Stats): LogSource {
  if (stat.isFile()) return { kind: 'recording' };
  if (stat.isFIFO()) return { kind: 'stream' };
  if (stat.isDirectory()) return { kind: 'not-a-log', what: 'a directory' };
  if (stat.isCharacterDevice()) {
    // Linux's encoding of a device number (include/linux/kdev_t.h, new_decode_dev).
    const major = Math.floor(stat.rdev / 256) & 0xfff;
    const minor = (stat.rdev & 0xff) | (Math.floor(stat.rdev / 4096) & 0xfff00);
    return major === 1 && minor === 11 ? { kind: 'kmsg' } : { kind: 'not-a-log', what: `a character device (${major}:${minor}) that is not /dev/kmsg (1:11)` };
  }
  return { kind: 'not-a-log', what: stat.isBlockDevice() ? 'a block device' : 'neither a file nor a device' };
}
