// Parses the wear_packages section (probes/wear.ts): the third-party
// packages of the phone's first user with their uids, as
// `pm list packages -3 -U --user 0` prints them, or without uids where the
// phone's pm has no -U. Pure. The catalogue (AOSP's PackageManagerShellCommand
// runListPackages, Android 7 on; Pm.java before):
// - each package as `package:NAME`, and with -U (Android 8 on) ` uid:UID`
//   after it; Android 14 on collects a package's uids over the users it
//   lists and prints them joined by commas (`uid:10123,1010123`): the app
//   id is the uid modulo 100000 (UserHandle.PER_USER_RANGE), the same in
//   every user;
// - "Error: Unknown option: -U" before Android 8 (then the section lists
//   the packages again without it), "Error: ..." and exceptions when the
//   package service is not there, nothing at all for a phone without
//   third-party packages;
// - `pm_status:N`, the section's own last line, the exit status of the
//   last listing: a listing cut by `timeout` (124) or failed is unread,
//   never "no packages".
// The app ids count toward the range apps are given, 10000-19999
// (Process.FIRST/LAST_APPLICATION_UID): Google's lab server reboots a phone
// whose largest installed package's uid reaches 19990 (b/24328998), and
// Chromium's swarming bot checks the same.
import type { AppIds, Unread } from '../../../wear.js';

export interface WearPackages {
  /** Third-party package names, as printed (untrusted text). */
  thirdParty?: string[];
  apps?: AppIds;
  unread: Unread[];
}

const PACKAGE = /^package:([A-Za-z0-9_.]+)(?:\s+uid:([0-9,]+))?\s*$/;

export function parseWearPackages(text: string): WearPackages {
  const names = new Set<string>();
  let maxAppId: number | undefined;
  let withUid = 0;
  let status: number | undefined;
  let other: string | undefined;
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const s = /^pm_status:(\d+)$/.exec(line);
    if (s) {
      status = Number(s[1]);
      continue;
    }
    const m = PACKAGE.exec(line);
    if (!m) {
      if (!/^Error: Unknown option: -U$/.test(line)) other ??= line;
      continue;
    }
    names.add(m[1]!);
    const ids = (m[2] ?? '')
      .split(',')
      .filter(Boolean)
      .map(Number)
      .filter((uid) => Number.isSafeInteger(uid) && uid >= 0)
      .map((uid) => uid % 100_000);
    if (ids.length === 0) continue;
    withUid++;
    maxAppId = Math.max(maxAppId ?? 0, ...ids);
  }
  if (status !== 0) {
    return {
      unread: [{ what: 'packages', why: status === undefined ? 'garbage' : 'refused', detail: status === undefined ? undefined : `exit status ${status}` }],
    };
  }
  // A listing that printed only an error with status 0 (Android 7's cmd exits 0 whatever happened) read nothing.
  if (names.size === 0 && other !== undefined) return { unread: [{ what: 'packages', why: 'refused' }] };
  const unread: Unread[] = [];
  if (maxAppId === undefined && names.size > 0) unread.push({ what: 'app ids', why: 'absent' });
  return {
    thirdParty: [...names].sort(),
    ...(maxAppId !== undefined && { apps: { maxAppId, packages: withUid } }),
    unread,
  };
}
