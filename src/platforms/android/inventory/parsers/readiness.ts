// Parses the readiness sections: the settings a lab's baseline judges, as `settings list NAMESPACE` prints them, cut to
// the keys asked for, each namespace between its `namespace:NAME` and `status:NAME=N` lines; the keyguard's `secure=`
// line of `dumpsys window policy`; and a few properties as `prop:NAME=VALUE`. Pure.
//
// What `settings list` prints across the versions in use (SettingsCmd, Android 4.2-7; SettingsService through `cmd
// settings`, 7 on; docs/operations/lab.md):
// - every row as `name=value`, the value as stored: `null`, empty, or holding `=` and newlines of its own;
// - only errors when it cannot list ("Invalid command: list" before Android 6, "Invalid namespace", a provider error
//   with a stack trace, a SecurityException, "cmd: Can't find service: settings");
// - an exit status that says nothing before Android 8 (always 0), 255 for SettingsService's errors, 20 for `cmd`
//   without the service, 124 for `timeout`.
// So a status 0 does not say the list was read whole: a status 0 with rows printed does (the probe counts them,
// `rows:NAMESPACE=N`). A key a list read whole does not print is no row of the phone's (its check may know the
// framework's default: src/features/readiness/checks.ts); in any other list it is unread, and so is a key printed
// twice (a line of another value that reads like a row: the device's words, not the list's).

import type { ReadinessReading } from '../../../readiness.js';

export type { ReadinessReading };

const SETTING = /^([A-Za-z0-9_.:-]+)=(.*)$/;

export function parseReadiness(text: string) {
  const settings = new Map<string, Map<string, string>>();
  /** The keys printed twice in each list taken (its status 0), until its row count says whether it was read whole. */
  const doubtful = new Map<string, Set<string>>();
  const whole = new Map<string, ReadonlySet<string>>();
  const props = new Map<string, string>();
  let keyguardSecure: boolean | undefined;
  let namespace: string | undefined;
  let values = new Map<string, string>();
  let twice = new Set<string>();
  let any = false;
  // Android before 7 runs adb's shell on a pty, which ends each line with \r\n.
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const own = line.trim();
    if (own.startsWith('namespace:')) {
      namespace = own.slice('namespace:'.length);
      values = new Map();
      twice = new Set();
      continue;
    }
    const status = /^status:([a-z]+)=(\d+)$/.exec(own);
    if (status) {
      // Only a list that ended well is taken; its rows are what was read, a key printed twice is not.
      if (namespace !== undefined && status[1] === namespace && status[2] === '0') {
        for (const key of twice) values.delete(key);
        settings.set(namespace, values);
        doubtful.set(namespace, twice);
      }
      any = true;
      namespace = undefined;
      continue;
    }
    // After its status: the rows the list printed. Only a list taken, that printed rows, was read whole.
    const rows = /^rows:([a-z]+)=(\d+)$/.exec(own);
    if (rows) {
      const twiceIn = doubtful.get(rows[1]!);
      if (twiceIn !== undefined && Number(rows[2]) > 0) whole.set(rows[1]!, twiceIn);
      doubtful.delete(rows[1]!);
      continue;
    }
    const secure = /^secure=(true|false)$/.exec(own);
    if (secure) {
      keyguardSecure = secure[1] === 'true';
      any = true;
      continue;
    }
    if (own.startsWith('prop:')) {
      const prop = SETTING.exec(own.slice('prop:'.length));
      if (prop) props.set(prop[1]!, prop[2]!.trim());
      any = true;
      continue;
    }
    // A row as the list printed it: the value not trimmed (the framework's parser takes no spaces either).
    const setting = SETTING.exec(line);
    if (!setting || namespace === undefined) continue;
    if (values.has(setting[1]!)) twice.add(setting[1]!);
    values.set(setting[1]!, setting[2]!);
  }
  return any ? { settings, whole, keyguardSecure, props } : undefined;
}
