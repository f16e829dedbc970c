// Parses `getprop` output: one `[key]: [value]` per property. A value may
// span several lines (build descriptions, some vendor props), so a value ends
// at the first line that closes it with `]`. Android before 7 runs adb shell
// on a pty, which turns \n into \r\n; the \r is dropped here. Some builds
// print blanks after the closing `]` (fingerprint lines of a vivo iQOO Z6 and
// an Honor 20S in getprop/collect): they are not part of the value.

const START = /^\[([^\[\]\s]+)\]: \[(.*)$/;

export type Props = Readonly<Record<string, string>>;

export function parseGetprop(text: string): Props {
  // A null-prototype object keeps keys such as "__proto__" as plain data.
  const props: Record<string, string> = Object.create(null) as Record<string, string>;
  const lines = text.replace(/\r/g, '').split('\n');
  let key: string | undefined;
  let parts: string[] = [];
  for (const raw of lines) {
    const line = raw.trimEnd();
    const start = START.exec(line);
    if (start) {
      // An unterminated value before a new key is garbage: drop it.
      key = undefined;
      parts = [];
      const [, name = '', rest = ''] = start;
      if (rest.endsWith(']')) {
        props[name] = rest.slice(0, -1);
      } else {
        key = name;
        parts = [rest];
      }
      continue;
    }
    if (key === undefined) continue;
    if (line.endsWith(']')) {
      parts.push(line.slice(0, -1));
      props[key] = parts.join('\n');
      key = undefined;
      parts = [];
    } else {
      parts.push(raw);
    }
  }
  return props;
}

/** The value of the first key that has a non-empty, trimmed value. */
export function firstProp(props: Props, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = props[key]?.trim();
    if (value) return value;
  }
  return undefined;
}
