// Readiness's settings: the lab's baseline (readiness.checks), each `NAME` (the value that suits automated testing) or
// `NAME=VALUE` (the lab's own). The check names are here, in the config layer, so that a wrong name fails when the
// settings load (a test keeps them equal to checks.ts).
import type { Field } from '../../config/field.js';

export const READINESS_CHECK_NAMES = [
  'stayAwake',
  'screenLock',
  'windowAnimation',
  'transitionAnimation',
  'animatorDuration',
  'verifyAdbInstalls',
  'packageVerifier',
  'autoRotate',
  'autoTime',
  'autoTimeZone',
  'airplaneMode',
  'wifi',
  'batterySaver',
  'autoSystemUpdates',
  'developerOptions',
  'usbDebugging',
  'xiaomiInput',
  'xiaomiInstall',
  'paired',
  'developerMode',
  'developerImage',
  'passcode',
  'osVersion',
] as const;

const ENTRY = /^([A-Za-z]+)(?:=(\S+))?$/;

/** An entry's check name and the lab's value, when it names a check. */
function entryOf(entry: string) {
  const m = ENTRY.exec(entry.trim());
  return m && (READINESS_CHECK_NAMES as readonly string[]).includes(m[1]!) ? m : undefined;
}

/** The baseline: each check that matters, with the lab's own value where it gave one. */
export function parseReadinessChecks(entries: readonly string[]) {
  const baseline = new Map<string, string | undefined>();
  for (const entry of entries) {
    const m = entryOf(entry);
    if (m) baseline.set(m[1]!, m[2]);
  }
  return baseline;
}

export function checkReadinessChecks(value: string[]) {
  const bad = value.filter((entry) => !entryOf(entry));
  return bad.length
    ? `must be NAME or NAME=VALUE entries with NAME one of ${READINESS_CHECK_NAMES.join(', ')}; got ${bad.map((b) => JSON.stringify(b)).join(', ')}`
    : undefined;
}

export const readinessSettings = {
  'readiness.checks': {
    type: 'string[]',
    // Every check but those a lab opts into: Play Protect's, Wi-Fi and the iPhone's passcode.
    default: READINESS_CHECK_NAMES.filter((name) => !['packageVerifier', 'wifi', 'passcode'].includes(name)),
    check: checkReadinessChecks,
    format: 'NAME or NAME=VALUE list',
    help:
      "the lab's readiness baseline: the checks that matter, each `NAME` (the value that suits automated testing) or `NAME=VALUE` (the lab's own); " +
      'a phone that fails one is named not ready in its message, with what to do; a check not read (a list that failed, a row the phone does not print, a value its framework would not take) is unread: never failed, never ready, ' +
      "but for a row a whole list does not print where the framework's reader has one default in every version in use (`stayAwake` 1, `verifyAdbInstalls` 1, `autoRotate`, `airplaneMode`, `wifi`, `batterySaver` 0: docs/operations/lab.md), which is read as that default. " +
      'The names: `stayAwake` (on: the USB bit of the power sources it stays awake on; 1, AC only, fails), `screenLock` (false: no PIN, pattern or password), ' +
      '`windowAnimation`, `transitionAnimation`, `animatorDuration` (0), `verifyAdbInstalls` (0), `packageVerifier` (0), `autoRotate` (0), `autoTime`, `autoTimeZone` (1), ' +
      '`airplaneMode` (0), `wifi` (on), `batterySaver` (0), `autoSystemUpdates` (1: automatic updates off), `developerOptions`, `usbDebugging` (1), ' +
      '`xiaomiInput`, `xiaomiInstall` (1, Xiaomi phones on MIUI or HyperOS only); for the phones lockdown answers for: `paired` (true: the host is trusted), `developerMode` (true: ' +
      "Developer Mode on, iOS 16 and later: not an older phone's check), `developerImage` (true: the developer disk image mounted, iOS 17 and later, read over lockdown), " +
      '`passcode` (true: a passcode set; not in the default: lockdown tells it only while the phone is locked, ' +
      "its root domain's PasswordProtected being the lock state, so an unlocked iPhone is unread for it, never failed, never ready; add it only where the phones stay locked), " +
      "`osVersion` (`MIN..MAX`, either end optional, a bound covering its minor versions: the lab's own range, `9..` by default, e.g. `osVersion=12..16`; " +
      "what the host's tools support is judged apart, `iosDeveloper.tools`); read with the slow facts (`slowFactsRefreshSeconds`); an empty list turns readiness off",
  },
} as const satisfies Record<string, Field>;
