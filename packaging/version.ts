// The agent's version scheme, the one the device-testing cloud uses for its
// own connector: YYMM.DD of the build's (UTC) day, and YYMM.DD.N for the
// further builds of that day (N = 1, 2, ...). Debian orders these as wanted
// (2611.23 < 2611.23.1 < 2611.24) and they are valid image tags; npm accepts
// them in a private package.json, the one place the version is written.
const PATTERN = /^(\d{2})(0[1-9]|1[0-2])\.(0[1-9]|[12]\d|3[01])(?:\.([1-9]\d{0,3}))?$/;

export interface Version {
  /** Two-digit year, month and day of the build. */
  year: number;
  month: number;
  day: number;
  /** 0 for a day's first build, then 1, 2, ... */
  build: number;
}

export function parseVersion(text: string): Version | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), build: m[4] ? Number(m[4]) : 0 };
}

export function formatVersion(v: Version): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(v.year)}${two(v.month)}.${two(v.day)}${v.build > 0 ? `.${v.build}` : ''}`;
}

/** Negative, zero or positive as a is older than, the same as or newer than b. */
export function compareVersions(a: Version, b: Version): number {
  return a.year - b.year || a.month - b.month || a.day - b.day || a.build - b.build;
}

/**
 * The version of a new build made on `today` (UTC) after `previous`: today's
 * YYMM.DD, or the next suffix when `previous` is already of today (or, with
 * a clock behind the last release, of a later day: versions never go back).
 */
export function nextVersion(previous: Version | undefined, today: Date): Version {
  const fresh: Version = { year: today.getUTCFullYear() % 100, month: today.getUTCMonth() + 1, day: today.getUTCDate(), build: 0 };
  if (!previous || compareVersions(fresh, previous) > 0) return fresh;
  return { ...previous, build: previous.build + 1 };
}
