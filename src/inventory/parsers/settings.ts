// Parses the output of `settings get <namespace> <key>`: one line with the
// value, or "null" when the key is unset. Older builds print errors or Java
// stack traces on the same stream (the script merges stderr).

const FAILURE = /^(\/system\/bin\/sh: |sh: |Error|Exception|java\.|\s+at |Security exception|usage:)|not found$|inaccessible or not found/i;

export function parseSettingValue(text: string): string | undefined {
  const lines = text.replace(/\r/g, '').split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) return undefined;
  const value = (lines[0] ?? '').trim();
  if (value === 'null' || FAILURE.test(value)) return undefined;
  return value;
}
