// Where readiness meets the USB layer: a phone adb no longer lists while
// the kernel still has it on a USB port (src/devices/off-source.ts) cannot
// be asked for its settings, but why adb lost it is known well enough to
// judge it: its USB debugging is off (an OS update turns it off), or it came
// up in charge-only mode (a revoked host key does not hide a phone: adb
// lists it unauthorized). Each makes it
// fail the usbDebugging check, so it is not ready with that cause rather
// than gone. Pure.
import type { OffSource } from '../../devices/off-source.js';
import { CHECKS } from './checks.js';
import type { Verdict } from './verdict.js';

const USB_DEBUGGING = CHECKS.find((c) => c.id === 'usbDebugging')!;

/** The value a phone off adb is shown with: adb cannot reach it, so its adb_enabled was not read. */
const OFF_ADB_VALUE = 'off adb';

/**
 * The verdict of a phone on a port and off adb: not ready, failing
 * usbDebugging; undefined when the baseline leaves usbDebugging out, for a
 * phone of another platform than the one readiness reads (`platformName`,
 * its reader's: an iPhone has no USB debugging), and where the kernel shows
 * more than the port (`mode`: a phone in its bootloader, or one offering
 * adb's interface, whose debugging is on): the USB layer's word stands.
 */
export function offAdbVerdict(off: OffSource, baseline: ReadonlyMap<string, string | undefined>, platformName: string): Verdict | undefined {
  if (off.platformName !== platformName || off.mode !== undefined || !baseline.has(USB_DEBUGGING.id)) return undefined;
  return {
    ready: false,
    failed: [{ check: USB_DEBUGGING, value: OFF_ADB_VALUE, expected: baseline.get(USB_DEBUGGING.id) ?? USB_DEBUGGING.expect }],
    unread: [],
  };
}

/** The message of such a phone: the cause, each way it comes about with its fix, and that it is not unplugged. */
export function offAdbMessage(off: OffSource): string {
  return (
    `not ready for automation: USB debugging is unreachable (usbDebugging): on USB port ${off.port} (the kernel enumerated it) but ${off.source} does not list it. ` +
    'USB debugging turned off (an OS update does it): Developer options > USB debugging on; ' +
    'charge-only USB mode: set the USB mode to File transfer, or pick it in the "USB charging this device" notification; ' +
    'not unplugged'
  );
}
