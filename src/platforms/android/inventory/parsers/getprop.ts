// Parses `getprop`: one `[key]: [value]` per property, a value ending at the first line that closes it with `]` (values
// may span lines). Android before 7 runs adb shell on a pty (\r\n): the \r is dropped; blanks after the closing `]`
// (some vivo and Honor builds) are not part of the value.

export type Props = Readonly<Record<string, string>>;

const SPACE = /\s/;
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || (c > 127 && SPACE.test(String.fromCharCode(c)));

// The end of a line without its trailing blanks, as String#trimEnd cuts them.
function trimmedEnd(text: string, from: number, to: number) {
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  return to;
}

// `[key]: [` at the start of a line (a key has no brackets and no blanks), tested in place by a sticky regex.
const OPENING = /\[[^[\]\s]+\]: \[/y;

// A line terminator other than \n (U+2028, U+2029) inside a value means the line opens no property.
function hasSeparator(text: string, from: number, to: number) {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

// Scans with indexOf and a sticky regex rather than splitting lines: this is the busiest parser (`npm run bench`);
// test/platforms/android/inventory/parsers/getprop-reference.test.ts holds the line-by-line reference it must agree with.
// `keep`: the only properties wanted; the others are scanned past, not cut out and stored (half the time).
export function parseGetprop(text: string, keep?: ReadonlySet<string>) {
  // A null-prototype object keeps keys such as "__proto__" as plain data.
  const props = Object.create(null) as Record<string, string>;
  if (text.includes('\r')) text = text.replace(/\r/g, '');
  const separators = text.includes('\u2028') || text.includes('\u2029');
  let key: string | undefined;
  let parts: string[] = [];
  for (let from = 0; from <= text.length;) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const end = trimmedEnd(text, from, to);
    let value = -1;
    if (text.charCodeAt(from) === 0x5b) {
      OPENING.lastIndex = from;
      if (OPENING.test(text) && OPENING.lastIndex <= end) value = OPENING.lastIndex;
      if (separators && value >= 0 && hasSeparator(text, value, end)) value = -1;
    }
    if (value >= 0) {
      // An unterminated value before a new key is garbage: drop it.
      key = undefined;
      parts = [];
      const name = text.slice(from + 1, value - 4);
      if (keep !== undefined && !keep.has(name)) {
        // Not wanted: its lines go by like those of a key that is not there.
      } else if (end > value && text.charCodeAt(end - 1) === 0x5d) {
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
export function firstProp(props: Props, keys: readonly string[]) {
  return keys.map((key) => props[key]?.trim()).find(Boolean);
}
