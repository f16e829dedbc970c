// The readiness checks: what each reads (the shell inventory's readiness section, or the facts a source publishes),
// the value that suits automated testing, and what a person does when the phone differs. A check applies by the kind
// of source its reading has, never by platform name. Pure.
import type { ReadinessReading } from '../../platforms/readiness.js';
import { atLeast, readValue, type ValueKind } from '../../devices/readiness-grammar.js';

/** Where a check's value comes from. */
type Source =
  /**
   * A `settings list` key. A key a list read whole does not print is no row
   * of the phone's: its value is `absent` where the framework's own reader
   * takes the same default in every version in use (the reader named beside
   * it, fixtures/SOURCES.md of test/features/readiness), else unread; in a
   * list not read whole it is unread.
   */
  | { kind: 'setting'; namespace: 'global' | 'system'; key: string; absent?: string }
  /** The keyguard's `secure=` (a PIN, pattern or password set). */
  | { kind: 'keyguard' }
  /**
   * A system property, read only on the makers named and on a phone that sets one of `os` (its maker's own OS, not a
   * custom ROM on its hardware); a blank property reads as unread: no phone of ours showed its default.
   */
  | { kind: 'prop'; name: string; makers: RegExp; os: readonly string[] }
  /** A fact the phone's source published under the check's name (src/devices/readiness-facts.ts); `key` is what it was read from, as the message names it. */
  | { kind: 'fact'; key: string };

export interface Check {
  /** The name in `readiness.checks`. */
  readonly id: string;
  /** What it is, as the message names it. */
  readonly what: string;
  readonly source: Source;
  /** The value that suits automated testing: the baseline's default. */
  readonly expect: string;
  /** How its value reads and meets the expected one (src/devices/readiness-grammar.ts): a text outside its grammar is unread, never passed or failed. */
  readonly kind: ValueKind;
  /** A fact check that a phone's OS has only from this version on (Developer Mode, iOS 16): on an older one the check is not the phone's, as a maker's check on another maker's phone. */
  readonly since?: string;
  /** What a person does to meet it. */
  readonly fix: string;
  /** The source's own message already gives the fix (the iOS "not paired" one): the device's message names the check only. */
  readonly fixInSourceMessage?: true;
}

/** Xiaomi's phones on MIUI or HyperOS (HyperOS keeps MIUI's version property too). */
const MIUI = { makers: /^(xiaomi|redmi|poco)$/i, os: ['ro.miui.ui.version.code', 'ro.mi.os.version.code'] };

/**
 * One of the three animation scales, expected off. No row is unread: WindowManagerService reads them with its current
 * value as the default.
 */
const scale = (id: string, what: string, key: string): Check => ({
  id,
  what,
  source: { kind: 'setting', namespace: 'global', key },
  expect: '0',
  kind: 'scale',
  fix: `Developer options > Window, Transition and Animator duration scale: Animation off (adb shell settings put global ${key} 0)`,
});

export const CHECKS: readonly Check[] = [
  {
    id: 'stayAwake',
    what: 'stay awake while charging',
    // No row: PowerManagerService.updateSettingsLocked reads it with BatteryManager.BATTERY_PLUGGED_AC, Android 5 on.
    source: { kind: 'setting', namespace: 'global', key: 'stay_on_while_plugged_in', absent: '1' },
    expect: 'on',
    kind: 'plugged',
    fix: 'Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7)',
  },
  {
    id: 'screenLock',
    what: 'secure screen lock',
    source: { kind: 'keyguard' },
    expect: 'false',
    kind: 'boolean',
    fix: 'Settings > Security > Screen lock: None or Swipe (a person must remove the PIN, pattern or password)',
  },
  scale('windowAnimation', 'window animation scale', 'window_animation_scale'),
  scale('transitionAnimation', 'transition animation scale', 'transition_animation_scale'),
  scale('animatorDuration', 'animator duration scale', 'animator_duration_scale'),
  {
    id: 'verifyAdbInstalls',
    what: 'verify apps over USB',
    // No row: read with 1 by PackageManagerService.isVerificationEnabled (Android 5 to 12),
    // VerificationParams.isVerificationEnabled (13) and VerifyingSession.isAdbVerificationEnabled (14 on).
    source: { kind: 'setting', namespace: 'global', key: 'verifier_verify_adb_installs', absent: '1' },
    expect: '0',
    kind: 'flag',
    fix: 'Developer options > Verify apps over USB off (adb shell settings put global verifier_verify_adb_installs 0)',
  },
  {
    id: 'packageVerifier',
    what: 'app verification (Play Protect)',
    // No row is unread: PackageManagerService read it with 1 up to Android 12, the framework no longer reads it
    // from 13 (VerifyingSession), and Play Protect's own default is not public.
    source: { kind: 'setting', namespace: 'global', key: 'package_verifier_enable' },
    expect: '0',
    kind: 'flag',
    fix: 'Play Store > Play Protect > Scan apps with Play Protect off',
  },
  {
    id: 'autoRotate',
    what: 'auto-rotation',
    // No row: read with 0 by PhoneWindowManager.updateSettings (Android 5 to 9) and DisplayRotation (10 on).
    source: { kind: 'setting', namespace: 'system', key: 'accelerometer_rotation', absent: '0' },
    expect: '0',
    kind: 'flag',
    fix: 'quick settings: Auto-rotate off (adb shell settings put system accelerometer_rotation 0)',
  },
  {
    id: 'autoTime',
    what: 'automatic date and time',
    // No row is unread: NetworkTimeUpdateService.isAutomaticTimeRequested read it with 0, the time detector
    // (ServiceConfigAccessorImpl, Android 12 on) with 1.
    source: { kind: 'setting', namespace: 'global', key: 'auto_time' },
    expect: '1',
    kind: 'flag',
    fix: 'Settings > System > Date & time: Set time automatically on',
  },
  {
    id: 'autoTimeZone',
    what: 'automatic time zone',
    // No row is unread: read with 0 before the time zone detector, with 1 by it (ServiceConfigAccessorImpl).
    source: { kind: 'setting', namespace: 'global', key: 'auto_time_zone' },
    expect: '1',
    kind: 'flag',
    fix: 'Settings > System > Date & time: Set time zone automatically on',
  },
  {
    id: 'airplaneMode',
    what: 'airplane mode',
    // No row: read with 0 by WifiSettingsStore.getPersistedAirplaneModeOn, every version, as by telephony's readers.
    source: { kind: 'setting', namespace: 'global', key: 'airplane_mode_on', absent: '0' },
    expect: '0',
    kind: 'flag',
    fix: 'quick settings: Airplane mode off',
  },
  {
    id: 'wifi',
    what: 'Wi-Fi',
    // No row: WifiSettingsStore.getPersistedWifiState takes WIFI_DISABLED (0) and writes it, every version.
    source: { kind: 'setting', namespace: 'global', key: 'wifi_on', absent: '0' },
    expect: 'on',
    kind: 'wifi',
    fix: "quick settings: Wi-Fi on, joined to the lab's network",
  },
  {
    id: 'batterySaver',
    what: 'battery saver',
    // No row: read with 0 by PowerManagerService.updateSettingsLocked (Android 5 to 8) and
    // BatterySaverStateMachine.refreshSettingsLocked (9 on).
    source: { kind: 'setting', namespace: 'global', key: 'low_power', absent: '0' },
    expect: '0',
    kind: 'flag',
    fix: 'quick settings: Battery saver off',
  },
  {
    id: 'autoSystemUpdates',
    what: 'automatic system updates',
    // 1 means the automatic updates are off. No row is unread: no framework service reads it (the vendor's
    // updater does; AOSP's Settings app shows it with 0).
    source: { kind: 'setting', namespace: 'global', key: 'ota_disable_automatic_update' },
    expect: '1',
    kind: 'flag',
    fix: 'Developer options > Automatic system updates off',
  },
  {
    id: 'developerOptions',
    what: 'developer options',
    // No row is unread: its default depends on the build type (eng builds: 1).
    source: { kind: 'setting', namespace: 'global', key: 'development_settings_enabled' },
    expect: '1',
    kind: 'flag',
    fix: 'Settings > About phone: tap Build number seven times, then keep Developer options on',
  },
  {
    id: 'usbDebugging',
    what: 'USB debugging',
    // No row is unread: the framework derives it from persist.sys.usb.config (UsbDeviceManager, AdbService), no fixed default.
    source: { kind: 'setting', namespace: 'global', key: 'adb_enabled' },
    expect: '1',
    kind: 'flag',
    fix: 'Developer options > USB debugging on',
  },
  {
    id: 'xiaomiInput',
    what: 'Xiaomi "USB debugging (Security settings)"',
    source: { kind: 'prop', name: 'persist.security.adbinput', ...MIUI },
    expect: '1',
    kind: 'flag',
    fix: 'Developer options > USB debugging (Security settings) on (MIUI asks for a SIM and a Mi account); without it input injection is refused',
  },
  {
    id: 'xiaomiInstall',
    what: 'Xiaomi "Install via USB"',
    source: { kind: 'prop', name: 'persist.security.adbinstall', ...MIUI },
    expect: '1',
    kind: 'flag',
    fix: 'Developer options > Install via USB on (MIUI asks for a Mi account)',
  },
  {
    id: 'paired',
    what: 'paired and trusted',
    source: { kind: 'fact', key: 'pair record and StartSession' },
    expect: 'true',
    kind: 'boolean',
    fix: 'unlock it, tap "Trust" on "Trust This Computer?" and enter the passcode, then run `idevicepair pair` on the host (as the user usbmuxd serves)',
    fixInSourceMessage: true,
  },
  {
    id: 'developerMode',
    what: 'Developer Mode',
    source: { kind: 'fact', key: 'DeveloperModeStatus' },
    expect: 'true',
    kind: 'boolean',
    since: '16',
    fix: 'Settings > Privacy & Security > Developer Mode on, restart when asked, then confirm "Turn On" after the restart (a person must do it: the phone asks for its passcode)',
  },
  {
    id: 'developerImage',
    what: 'the developer disk image',
    source: { kind: 'fact', key: 'mobile_image_mounter LookupImage' },
    expect: 'true',
    kind: 'boolean',
    since: '17',
    fix: 'mount the personalized developer disk image: `ios image auto` (go-ios) or `pymobiledevice3 mounter auto-mount` on the host, Developer Mode on first; a reboot unmounts it',
  },
  {
    id: 'passcode',
    what: 'a passcode',
    source: { kind: 'fact', key: 'PasswordProtected' },
    expect: 'true',
    kind: 'boolean',
    fix: 'Settings > Face ID & Passcode (or Touch ID & Passcode) > Turn Passcode On (a person must choose it)',
  },
  {
    id: 'osVersion',
    what: 'OS version',
    source: { kind: 'fact', key: 'ProductVersion' },
    expect: '9..',
    kind: 'version',
    fix: "update it (Settings > General > Software Update) or give the host tools that support it, as the lab's `readiness.checks` range osVersion=MIN..MAX names",
  },
];

export const CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

/** The facts a source published of a phone (src/devices/readiness-facts.ts), by check name. */
export interface FactsReading {
  readonly facts: ReadonlyMap<string, string>;
}

/** What a phone's platform read for readiness: the shell inventory's sections, or a source's facts. */
export type Reading = ReadinessReading | FactsReading;

/**
 * Whether the check is this phone's: its kind of source, its maker and its maker's OS (a Xiaomi toggle on MIUI or
 * HyperOS), and its OS version (Developer Mode from iOS 16). A maker or OS not yet known keeps the check: unread until told.
 */
export function appliesTo(check: Check, reading: Reading, maker: string | undefined) {
  const source = check.source;
  // A check of the other kind of source than the reading's is not for this phone.
  if ((source.kind === 'fact') !== 'facts' in reading) return false;
  if (source.kind === 'prop' && maker !== undefined && !source.makers.test(maker)) return false;
  // Read, and its maker's OS is not there: a custom ROM (LineageOS on a Xiaomi). Not read, it may be: unread.
  if (source.kind === 'prop' && !('facts' in reading) && source.os.every((name) => reading.props.get(name) === '')) return false;
  if (check.since !== undefined && 'facts' in reading) {
    const version = reading.facts.get('osVersion');
    if (version !== undefined && readValue('version', version) !== undefined && !atLeast(version, check.since)) return false;
  }
  return true;
}

/**
 * Whether the check's value is the framework's default for a row the phone
 * does not have: a setting with a fixed default that a list read whole did
 * not print (nor printed twice).
 */
export function absentRow(check: Check, reading: Reading) {
  const source = check.source;
  if ('facts' in reading || source.kind !== 'setting' || source.absent === undefined) return false;
  if (reading.settings.get(source.namespace)?.has(source.key)) return false;
  const twice = reading.whole?.get(source.namespace);
  return twice !== undefined && !twice.has(source.key);
}

/** The text the phone gave for the check, before its grammar; undefined when none (a list that failed, a key it does not print and whose default is not fixed). */
function rawOf(check: Check, reading: Reading, maker: string | undefined) {
  const source = check.source;
  if ('facts' in reading) return source.kind === 'fact' ? reading.facts.get(check.id) : undefined;
  switch (source.kind) {
    case 'fact':
      return undefined;
    case 'setting':
      return reading.settings.get(source.namespace)?.get(source.key) ?? (absentRow(check, reading) ? source.absent : undefined);
    case 'keyguard':
      return reading.keyguardSecure?.toString();
    case 'prop':
      return maker !== undefined && source.makers.test(maker) ? reading.props.get(source.name) : undefined;
  }
}

/** The phone's value for the check, as its grammar reads it; undefined when not read (failed list, absent key, garbage, not its check). */
export function valueOf(check: Check, reading: Reading, maker: string | undefined) {
  const raw = rawOf(check, reading, maker);
  return raw === undefined ? undefined : readValue(check.kind, raw);
}
