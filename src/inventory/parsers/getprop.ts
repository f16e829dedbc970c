// Parses `getprop` output: one `[key]: [value]` per property. A value may
// span several lines (build descriptions, some vendor props), so a value ends
// at the first line that closes it with `]`. Android before 7 runs adb shell
// on a pty, which turns \n into \r\n; the \r is dropped here. Some builds
// print blanks after the closing `]` (fingerprint lines of a vivo iQOO Z6 and
// an Honor 20S in getprop/collect): they are not part of the value.

export type Props = Readonly<Record<string, string>>;

const SPACE = /\s/;
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c > 127 && SPACE.test(String.fromCharCode(c)));

// The end of a line without its trailing blanks, as String#trimEnd cuts them.
function trimmedEnd(text: string, from: number, to: number): number {
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  return to;
}

// Where the value of a `[key]: [value` line starts, or -1 when the line does
// not open a property. A key has no brackets and no blanks.
function valueStart(text: string, from: number, to: number): number {
  if (text.charCodeAt(from) !== 0x5b) return -1;
  let i = from + 1;
  for (; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5d) break;
    if (c === 0x5b || isSpace(c)) return -1;
  }
  if (i === from + 1 || i + 4 > to || !text.startsWith(': [', i + 1)) return -1;
  // The value runs to the end of the line: a line terminator inside it
  // (U+2028, U+2029) means it does not.
  for (let j = i + 4; j < to; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x2028 || c === 0x2029) return -1;
  }
  return i + 4;
}

// Scans the text with indexOf rather than a regex per line: the property
// dump is the largest output of an inventory (about 1,000 lines), and this
// is the agent's busiest parser (`npm run bench`, CPU profile).
export function parseGetprop(text: string): Props {
  // A null-prototype object keeps keys such as "__proto__" as plain data.
  const props: Record<string, string> = Object.create(null) as Record<string, string>;
  if (text.includes('\r')) text = text.replace(/\r/g, '');
  let key: string | undefined;
  let parts: string[] = [];
  for (let from = 0; from <= text.length; ) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const end = trimmedEnd(text, from, to);
    const value = valueStart(text, from, end);
    if (value >= 0) {
      // An unterminated value before a new key is garbage: drop it.
      key = undefined;
      parts = [];
      const name = text.slice(from + 1, value - 4);
      if (end > value && text.charCodeAt(end - 1) === 0x5d) {
        props[name] = text.slice(value, end - 1);
      } else if (end === value) {
        key = name;
        parts = [''];
      } else {
        key = name;
        parts = [text.slice(value, end)];
      }
    } else if (key !== undefined) {
      if (end > from && text.charCodeAt(end - 1) === 0x5d) {
        parts.push(text.slice(from, end - 1));
        props[key] = parts.join('\n');
        key = undefined;
        parts = [];
      } else {
        parts.push(text.slice(from, to));
      }
    }
    from = to + 1;
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
