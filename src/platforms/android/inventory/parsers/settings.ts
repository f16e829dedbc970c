// Parses the output of `settings get <namespace> <key>`: one line with the value, or "null" when the key is unset.
// Older builds print errors or Java stack traces on the same stream (the script merges stderr).

// What a failed call prints instead of a value: the shell or `timeout` missing the command, framework exceptions, and
// each error line of the `settings` command's source in every version in use: SettingsCmd (Android 4.2-7),
// SettingsService (8 on) and `cmd` ("cmd: Can't find service: settings", before 8 without "cmd: ").
const FAILURE =
  /^(\/system\/bin\/sh: |sh: |timeout: |Error|Exception|java\.|\s+at |Security exception|usage:|(cmd: )?Can't find service|Invalid (command|namespace|table|user)\b|Too many arguments$|Bad arguments$|Unspecified command$|Unable to run settings command$|Argument expected to be 'default'$|Can't (read|set|clear) key |List failed in |--user not supported)|not found$|No such file or directory$|Permission denied$|inaccessible or not found/i;

export function parseSettingValue(text: string) {
  const lines = text
    .replace(/\r/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '');
  if (lines.length !== 1) return undefined;
  const value = (lines[0] ?? '').trim();
  if (value === 'null' || FAILURE.test(value)) return undefined;
  return value;
}

/**
 * A free-text setting a person types (the device's name): any shell user can put a newline in it, and `settings get`
 * prints it over several lines. Those lines are the value unless one of them is a failure.
 */
export function parseSettingText(text: string) {
  const lines = text.replace(/\r/g, '').replace(/\n+$/, '').split('\n');
  if (lines.some((line) => FAILURE.test(line.trim()))) return undefined;
  const value = lines.join('\n').trim();
  return value === '' || value === 'null' ? undefined : value;
}

/** True when the output says the setting is not set ("null"), as opposed to a failed call. */
export function isUnsetSetting(text: string) {
  return text.replace(/\r/g, '').trim() === 'null';
}

/** A value as a reader that must tell unset from failed needs it: the value, `null` for an unset key, undefined for a failed call. */
export function parseSettingOrUnset(text: string) {
  return isUnsetSetting(text) ? 'null' : parseSettingValue(text);
}

/**
 * The framework's refusal of a `settings put`, as the command prints it: the
 * SecurityException's message ("Permission denial: writing to settings
 * requires:android.permission.WRITE_SECURE_SETTINGS"), after SettingsService's
 * "Exception occurred while executing 'put':" (Android 8 on), SettingsCmd's
 * "Error while accessing settings provider" (4.2 to 7), or `cmd`'s "Security
 * exception: ..." line; undefined when it printed none. A maker's policy
 * refuses adb's shell so until a developer toggle is on
 * (test/platforms/android/inventory/parsers/fixtures/SOURCES.md, settings-put/).
 */
export function parseWriteRefusal(text: string) {
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const m = /^\s*(?:java\.lang\.SecurityException|Security exception): (.+)$/.exec(line);
    if (m) return m[1]!.trim().slice(0, 300);
  }
}
