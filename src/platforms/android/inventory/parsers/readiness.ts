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
// So only a row says a setting was read: a key the list does not print is unread, and so is a key printed twice (a
// line of another value that reads like a row: the device's words, not the list's).

import type { ReadinessReading } from '../../../readiness.js';

export type { ReadinessReading };

const SETTING = /^([A-Za-z0-9_.:-]+)=(.*)$/;

export function parseReadiness(text: string): ReadinessReading | undefined {
  const settings = new Map<string, Map<string, string>>();
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
      }
      any = true;
      namespace = undefined;
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
      if (prop && prop[2]!.trim() !== '') props.set(prop[1]!, prop[2]!.trim());
      any = true;
      continue;
    }
    // A row as the list printed it: the value not trimmed (the framework's parser takes no spaces either).
    const setting = SETTING.exec(line);
    if (!setting || namespace === undefined) continue;
    if (values.has(setting[1]!)) twice.add(setting[1]!);
    values.set(setting[1]!, setting[2]!);
  }
  return any ? { settings, keyguardSecure, props } : undefined;
}
