// The lab's readiness baseline (setting readiness.checks): which checks
// matter, each `NAME` (the value that suits automated testing) or
// `NAME=VALUE` (the lab's own value). The checks themselves live in
// src/features/readiness/checks.ts; their names are here so that a wrong
// name fails when the settings load (a test keeps the two lists equal).

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
  'passcode',
  'osVersion',
] as const;

const ENTRY = /^([A-Za-z]+)(?:=(\S+))?$/;

/** The baseline: each check that matters, with the lab's own value where it gave one. */
export function parseReadinessChecks(entries: readonly string[]): Map<string, string | undefined> {
  const baseline = new Map<string, string | undefined>();
  for (const entry of entries) {
    const m = ENTRY.exec(entry.trim());
    if (m && (READINESS_CHECK_NAMES as readonly string[]).includes(m[1]!)) baseline.set(m[1]!, m[2]);
  }
  return baseline;
}

export function checkReadinessChecks(value: string[]): string | undefined {
  const bad = value.filter((entry) => {
    const m = ENTRY.exec(entry.trim());
    return !m || !(READINESS_CHECK_NAMES as readonly string[]).includes(m[1]!);
  });
  return bad.length
    ? `must be NAME or NAME=VALUE entries with NAME one of ${READINESS_CHECK_NAMES.join(', ')}; got ${bad.map((b) => JSON.stringify(b)).join(', ')}`
    : undefined;
}
