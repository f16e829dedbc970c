// The build a phone runs, from its ro.build.fingerprint: what an OTA update
// changes, and the line that names the old and the new one. Pure.

export interface Build {
  fingerprint: string;
  /** The Android version (ro.build.version.release at build time). */
  release?: string;
  /** The build id (ro.build.id: "CP1A.260305.018"). */
  id?: string;
}

// BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS, as Android's
// Build.FINGERPRINT is made; a vendor's odd one is still a build, unnamed.
const FINGERPRINT = /^[^/]*\/[^/]*\/[^:]*:([^/]*)\/([^/]*)\/[^:]*:[^/]*\/.*$/;

/** The build a fingerprint names; undefined for a blank one (getprop failed, or the property is hidden). */
export function buildOf(fingerprint: string | undefined) {
  const text = fingerprint?.trim();
  if (!text) return undefined;
  const m = FINGERPRINT.exec(text);
  return m ? { fingerprint: text, release: m[1] || undefined, id: m[2] || undefined } : { fingerprint: text };
}

/** The platform's name of a build from its version and id (`ReadinessReader.buildName`). */
type BuildName = (release: string, id: string | undefined) => string;

/** The build as the platform names it ("Android 16 (CP1A.260305.018)"), or the fingerprint when it names no version. */
function named(build: Build, name: BuildName) {
  if (build.release === undefined) return build.fingerprint;
  return name(build.release, build.id);
}

/** The line of a build that changed between two readings: an update, or a new image flashed. */
export function buildLine(from: Build, to: Build, name: BuildName) {
  return (
    `build changed from ${named(from, name)} to ${named(to, name)} (an OTA update or a new image; ro.build.fingerprint was ${from.fingerprint}, is ${to.fingerprint}): ` +
    'an update may turn developer settings back on, which its readiness then names'
  );
}
