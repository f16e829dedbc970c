// Whether Android's Advanced Protection is on, as the shell reads its
// setting. Pure.
//
// AOSP (frameworks/base, services/core/java/com/android/server/security/
// advancedprotection/AdvancedProtectionService.java, Android 16): the
// service's store keeps the state in the secure setting
// `advanced_protection_mode` of the main user, `1` on and `0` off
// (`AdvancedProtectionStore`: putIntForUser / getIntForUser(..., APM_OFF)),
// so a row never written reads `null` (`settings get` prints it for a
// missing row) and means off. Its USB hook (features/
// UsbDataAdvancedProtectionHook.java) turns a port's USB data off when the
// phone is locked and the port is disconnected: a locked phone takes a new
// USB connection as charge-only until someone unlocks it.
//
// The probe asks only a phone of SDK 36 (Android 16) or later, so an older
// one prints nothing: "off" there is the platform's fact, not a reading.
// Anything but one of the three values (an error of the settings command, a
// value the service never writes) is unknown.

export type AdvancedProtection = 'on' | 'off';

/** The section's first line says whether the phone was asked (`sdk:36+`) or is older (`sdk:older`). */
export function parseAdvancedProtection(text: string) {
  const lines = text
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 1 && lines[0] === 'sdk:older') return 'off';
  if (lines.length !== 2 || lines[0] !== 'sdk:36+') return undefined;
  return lines[1] === '1' ? 'on' : lines[1] === '0' || lines[1] === 'null' ? 'off' : undefined;
}
