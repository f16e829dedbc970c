// The readiness checks: what each reads of the slow-tier readiness section
// of the shell inventory (src/platforms/android/inventory/probes/readiness.ts)
// or of the facts a source publishes from its own session
// (src/devices/readiness-facts.ts: lockdown's, for the phones behind
// usbmuxd), the value that suits automated testing, and what a person does
// when the phone differs. A check applies to the phones whose reading has its
// kind of source: a phone is judged by what its platform can read, never by
// the platform's name. Pure.
import type { ReadinessReading } from '../../platforms/readiness.js';

/** Where a check's value comes from. */
type Source =
  /** A `settings list` key; `unset` is Android's default when the phone has no row for it. */
  | { kind: 'setting'; namespace: 'global' | 'system'; key: string; unset: string }
  /** The keyguard's `secure=` (a PIN, pattern or password set). */
  | { kind: 'keyguard' }
  /** A system property, read only on the makers named (a blank property reads as unread: no phone of ours showed its default). */
  | { kind: 'prop'; name: string; makers: RegExp }
  /** A fact the phone's source published under the check's name (src/devices/readiness-facts.ts); `key` is what it was read from, as the message names it. */
  | { kind: 'fact'; key: string };

/** How a value meets the expected one. */
type Match = 'equal' | 'on' | 'number' | 'range';

export interface Check {
  /** The name in `readiness.checks`. */
  readonly id: string;
  /** What it is, as the message names it. */
  readonly what: string;
  readonly source: Source;
  /** The value that suits automated testing: the baseline's default. */
  readonly expect: string;
  /**
   * `on`: any value but 0 (a bit mask, as stay awake's) passes `on` and `0` passes `off`; `number`: 0 and 0.0 are one value;
   * `range`: a dotted version within `MIN..MAX`, either end optional and both inclusive, a bound naming fewer parts covering all
   * below it (`..16` takes 16.7.2).
   */
  readonly match: Match;
  /** What a person does to meet it. */
  readonly fix: string;
  /**
   * The source's own message of a phone failing it already says what to do
   * (the iOS source's "not paired ... unlock it, tap Trust, then run
   * `idevicepair pair`"): the device's message then names the check without
   * saying the fix a second time. A log line and `doctor`, which carry no
   * device message, still give it.
   */
  readonly fixInSourceMessage?: true;
}

const ANIMATIONS = 'Developer options > Window, Transition and Animator duration scale: Animation off';

export const CHECKS: readonly Check[] = [
  {
    id: 'stayAwake',
    what: 'stay awake while charging',
    source: { kind: 'setting', namespace: 'global', key: 'stay_on_while_plugged_in', unset: '0' },
    expect: 'on',
    match: 'on',
    fix: 'Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7)',
  },
  {
    id: 'screenLock',
    what: 'secure screen lock',
    source: { kind: 'keyguard' },
    expect: 'false',
    match: 'equal',
    fix: 'Settings > Security > Screen lock: None or Swipe (a person must remove the PIN, pattern or password)',
  },
  {
    id: 'windowAnimation',
    what: 'window animation scale',
    source: { kind: 'setting', namespace: 'global', key: 'window_animation_scale', unset: '1.0' },
    expect: '0',
    match: 'number',
    fix: `${ANIMATIONS} (adb shell settings put global window_animation_scale 0)`,
  },
  {
    id: 'transitionAnimation',
    what: 'transition animation scale',
    source: { kind: 'setting', namespace: 'global', key: 'transition_animation_scale', unset: '1.0' },
    expect: '0',
    match: 'number',
    fix: `${ANIMATIONS} (adb shell settings put global transition_animation_scale 0)`,
  },
  {
    id: 'animatorDuration',
    what: 'animator duration scale',
    source: { kind: 'setting', namespace: 'global', key: 'animator_duration_scale', unset: '1.0' },
    expect: '0',
    match: 'number',
    fix: `${ANIMATIONS} (adb shell settings put global animator_duration_scale 0)`,
  },
  {
    id: 'verifyAdbInstalls',
    what: 'verify apps over USB',
    source: { kind: 'setting', namespace: 'global', key: 'verifier_verify_adb_installs', unset: '1' },
    expect: '0',
    match: 'equal',
    fix: 'Developer options > Verify apps over USB off (adb shell settings put global verifier_verify_adb_installs 0)',
  },
  {
    id: 'packageVerifier',
    what: 'app verification (Play Protect)',
    source: { kind: 'setting', namespace: 'global', key: 'package_verifier_enable', unset: '1' },
    expect: '0',
    match: 'equal',
    fix: 'Play Store > Play Protect > Scan apps with Play Protect off',
  },
  {
    id: 'autoRotate',
    what: 'auto-rotation',
    source: { kind: 'setting', namespace: 'system', key: 'accelerometer_rotation', unset: '0' },
    expect: '0',
    match: 'equal',
    fix: 'quick settings: Auto-rotate off (adb shell settings put system accelerometer_rotation 0)',
  },
  {
    id: 'autoTime',
    what: 'automatic date and time',
    source: { kind: 'setting', namespace: 'global', key: 'auto_time', unset: '1' },
    expect: '1',
    match: 'equal',
    fix: 'Settings > System > Date & time: Set time automatically on',
  },
  {
    id: 'autoTimeZone',
    what: 'automatic time zone',
    source: { kind: 'setting', namespace: 'global', key: 'auto_time_zone', unset: '1' },
    expect: '1',
    match: 'equal',
    fix: 'Settings > System > Date & time: Set time zone automatically on',
  },
  {
    id: 'airplaneMode',
    what: 'airplane mode',
    source: { kind: 'setting', namespace: 'global', key: 'airplane_mode_on', unset: '0' },
    expect: '0',
    match: 'equal',
    fix: 'quick settings: Airplane mode off',
  },
  {
    id: 'wifi',
    what: 'Wi-Fi',
    source: { kind: 'setting', namespace: 'global', key: 'wifi_on', unset: '0' },
    expect: 'on',
    match: 'on',
    fix: "quick settings: Wi-Fi on, joined to the lab's network",
  },
  {
    id: 'batterySaver',
    what: 'battery saver',
    source: { kind: 'setting', namespace: 'global', key: 'low_power', unset: '0' },
    expect: '0',
    match: 'equal',
    fix: 'quick settings: Battery saver off',
  },
  {
    id: 'autoSystemUpdates',
    what: 'automatic system updates',
    // 1 means the automatic updates are off.
    source: { kind: 'setting', namespace: 'global', key: 'ota_disable_automatic_update', unset: '0' },
    expect: '1',
    match: 'equal',
    fix: 'Developer options > Automatic system updates off',
  },
  {
    id: 'developerOptions',
    what: 'developer options',
    source: { kind: 'setting', namespace: 'global', key: 'development_settings_enabled', unset: '0' },
    expect: '1',
    match: 'equal',
    fix: 'Settings > About phone: tap Build number seven times, then keep Developer options on',
  },
  {
    id: 'usbDebugging',
    what: 'USB debugging',
    source: { kind: 'setting', namespace: 'global', key: 'adb_enabled', unset: '0' },
    expect: '1',
    match: 'equal',
    fix: 'Developer options > USB debugging on',
  },
  {
    id: 'xiaomiInput',
    what: 'Xiaomi "USB debugging (Security settings)"',
    source: { kind: 'prop', name: 'persist.security.adbinput', makers: /^(xiaomi|redmi|poco)$/i },
    expect: '1',
    match: 'equal',
    fix: 'Developer options > USB debugging (Security settings) on (MIUI asks for a SIM and a Mi account); without it input injection is refused',
  },
  {
    id: 'xiaomiInstall',
    what: 'Xiaomi "Install via USB"',
    source: { kind: 'prop', name: 'persist.security.adbinstall', makers: /^(xiaomi|redmi|poco)$/i },
    expect: '1',
    match: 'equal',
    fix: 'Developer options > Install via USB on (MIUI asks for a Mi account)',
  },
  {
    id: 'paired',
    what: 'paired and trusted',
    source: { kind: 'fact', key: 'pair record and StartSession' },
    expect: 'true',
    match: 'equal',
    fix: 'unlock it, tap "Trust" on "Trust This Computer?" and enter the passcode, then run `idevicepair pair` on the host (as the user usbmuxd serves)',
    fixInSourceMessage: true,
  },
  {
    id: 'developerMode',
    what: 'Developer Mode',
    source: { kind: 'fact', key: 'DeveloperModeStatus' },
    expect: 'true',
    match: 'equal',
    fix: 'Settings > Privacy & Security > Developer Mode on, restart when asked, then confirm "Turn On" after the restart (a person must do it: the phone asks for its passcode)',
  },
  {
    id: 'passcode',
    what: 'a passcode',
    source: { kind: 'fact', key: 'PasswordProtected' },
    expect: 'true',
    match: 'equal',
    fix: 'Settings > Face ID & Passcode (or Touch ID & Passcode) > Turn Passcode On (a person must choose it)',
  },
  {
    id: 'osVersion',
    what: 'OS version',
    source: { kind: 'fact', key: 'ProductVersion' },
    expect: '9..',
    match: 'range',
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

/** Whether the check reads the kind of source the reading has: a check of the other kind is not for this phone. */
export function appliesTo(check: Check, reading: Reading): boolean {
  return (check.source.kind === 'fact') === 'facts' in reading;
}

/** The phone's value for the check, or undefined when it was not read (or the check is not for this maker or this kind of reading). */
export function valueOf(check: Check, reading: Reading, maker: string | undefined): string | undefined {
  const source = check.source;
  if ('facts' in reading) return source.kind === 'fact' ? reading.facts.get(check.id) : undefined;
  switch (source.kind) {
    case 'fact':
      return undefined;
    case 'setting': {
      const list = reading.settings.get(source.namespace);
      return list === undefined ? undefined : (list.get(source.key) ?? source.unset);
    }
    case 'keyguard':
      return reading.keyguardSecure === undefined ? undefined : String(reading.keyguardSecure);
    case 'prop':
      return maker !== undefined && source.makers.test(maker) ? reading.props.get(source.name) : undefined;
  }
}

/** Whether `value` meets `expected` as the check compares them. */
export function meets(check: Check, value: string, expected: string): boolean {
  const v = value.trim();
  switch (check.match) {
    case 'on': {
      const isOn = v !== '0' && v !== '' && v !== 'null';
      return expected === 'off' || expected === '0' ? !isOn : expected === 'on' ? isOn : v === expected;
    }
    case 'number':
      return Number.isFinite(Number(v)) && Number(v) === Number(expected);
    case 'equal':
      return v === expected;
    case 'range':
      return inRange(v, expected);
  }
}

/** A dotted version's numeric parts ("16.3.1" → [16, 3, 1]); undefined when it is not one. */
function versionParts(text: string): number[] | undefined {
  return /^\d+(\.\d+)*$/.test(text) ? text.split('.').map(Number) : undefined;
}

/** -1, 0 or 1 comparing `version` with `bound` on the parts the bound names. */
function compareOnBound(version: readonly number[], bound: readonly number[]): number {
  for (let i = 0; i < bound.length; i++) {
    const d = (version[i] ?? 0) - bound[i]!;
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Whether `version` is within `MIN..MAX` (either end optional; an odd range or version is never within). */
export function inRange(version: string, range: string): boolean {
  const m = /^([\d.]*)\.\.([\d.]*)$/.exec(range.trim());
  const v = versionParts(version);
  if (!m || !v) return false;
  const [min, max] = [m[1] ? versionParts(m[1]) : [], m[2] ? versionParts(m[2]) : []];
  if (!min || !max) return false;
  return compareOnBound(v, min) >= 0 && (max.length === 0 || compareOnBound(v, max) <= 0);
}
