// What the agent sends to the cloud holds no NUL and no control character
// other than tab and newline (issue 23, "Clean strings"). Device properties
// are bytes a vendor or a user wrote (`deviceName: "Lab\u0000phone"`), and a
// cloud that keeps text in PostgreSQL refuses \u0000, and with it the whole
// host's report.
//
// Each such character becomes U+FFFD, the replacement character, rather than
// being dropped: the text keeps its length and shows that something was
// there, the way the UTF-8 decoder already shows bytes it could not read
// (those arrive as U+FFFD too, so there is one sign for "not text"), and a
// name made only of control bytes does not turn into an empty string, which
// a cloud may take for a missing field. Lone UTF-16 surrogates, which
// JSON.stringify writes as \udXXX escapes that PostgreSQL's jsonb refuses as
// well, become U+FFFD the same way.
//
// Pure; objects in which nothing changes are returned as they are, so a
// report of clean devices costs one walk and no copy.

export const REPLACEMENT = '\ufffd';

// C0 controls but tab (09) and newline (0a), DEL, and the C1 controls: Unicode's Cc.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

export function cleanString(text: string): string {
  const formed = text.isWellFormed() ? text : text.toWellFormed();
  return HAS_CONTROL.test(formed) ? formed.replace(CONTROL, REPLACEMENT) : formed;
}

// On a terminal a newline or a tab inside a cell starts a row or a column of
// its own (a phone named "x\nFAKE01  device ..." forges a row of `list`), and
// Unicode's format characters (Cf: the bidi overrides U+202A-202E and
// U+2066-2069, zero-width joiners, the soft hyphen) reorder or hide what
// follows them. The cloud keeps those as data; a terminal cell does not.
const TERMINAL_ONLY = /[\n\t\p{Cf}]/gu;

/** The text for one cell or line on a terminal: cleaned, and newlines, tabs and format characters shown as U+FFFD. */
export function terminalText(text: string): string {
  return cleanString(text).replace(TERMINAL_ONLY, REPLACEMENT);
}

/** The value with every string in it (object keys included) cleaned; the same value when nothing needed it. */
export function cleanStrings<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanString(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const cleaned = clean(item);
      if (cleaned !== item) (out ??= value.slice())[i] = cleaned;
    }
    return out ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    let out: Record<string, unknown> | undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key, item] of entries) {
      const k = cleanString(key);
      const cleaned = clean(item);
      if (cleaned !== item || k !== key) {
        out ??= Object.fromEntries(entries);
        if (k !== key) delete out[key];
        out[k] = cleaned;
      }
    }
    return out ?? value;
  }
  return value;
}
