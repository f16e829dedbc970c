// Where readiness meets the USB layer: a phone off adb but on a USB port cannot be asked, but why adb lost it is known:
// USB debugging off (an OS update does it) or charge-only mode. Either fails usbDebugging: not ready with that cause
// rather than gone. Pure.
import type { OffSource } from '../../devices/off-source.js';
import { CHECKS } from './checks.js';

const USB_DEBUGGING = CHECKS.find((c) => c.id === 'usbDebugging')!;

/** The value a phone off adb is shown with: adb cannot reach it, so its adb_enabled was not read. */
const OFF_ADB_VALUE = 'off adb';

/**
 * The verdict of a phone on a port and off adb: failing usbDebugging; undefined when the baseline leaves it out, for
 * another platform's phone, or when the kernel shows more than the port (`mode`): the USB layer's word stands then.
 */
export function offAdbVerdict(off: OffSource, baseline: ReadonlyMap<string, string | undefined>, platformName: string) {
  if (off.platformName !== platformName || off.mode !== undefined || !baseline.has(USB_DEBUGGING.id)) return undefined;
  return {
    ready: false,
    failed: [{ check: USB_DEBUGGING, value: OFF_ADB_VALUE, expected: baseline.get(USB_DEBUGGING.id) ?? USB_DEBUGGING.expect }],
    unread: [],
  };
}

/** The message of such a phone: the cause, each way it comes about with its fix, and that it is not unplugged. */
export function offAdbMessage(off: OffSource) {
  return (
    `not ready for automation: USB debugging is unreachable (usbDebugging): on USB port ${off.port} (the kernel enumerated it) but ${off.source} does not list it. ` +
    'USB debugging turned off (an OS update does it): Developer options > USB debugging on; ' +
    'charge-only USB mode: set the USB mode to File transfer, or pick it in the "USB charging this device" notification; ' +
    'not unplugged'
  );
}
