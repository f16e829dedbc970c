// What the agent sends holds no NUL and no control character but tab and newline: device properties are bytes anyone
// wrote, and a cloud keeping text in PostgreSQL refuses \u0000, and with it the host's report. Each becomes U+FFFD
// rather than dropped, as the UTF-8 decoder shows bytes it could not read, so a name of control bytes does not turn
// empty; lone UTF-16 surrogates too (jsonb refuses their escapes). Pure; unchanged objects are returned as they are.

export const REPLACEMENT = '\ufffd';

// C0 controls but tab (09) and newline (0a), DEL, and the C1 controls: Unicode's Cc.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function cleanString(text: string) {
  return text.toWellFormed().replace(CONTROL, REPLACEMENT);
}

// On a terminal a newline or tab in a cell starts a row or column of its own (a phone named "x\nFAKE01  device ..."
// forges a row), and format characters (Cf: bidi overrides, zero-width joiners) reorder or hide what follows.
const TERMINAL_ONLY = /[\n\t\p{Cf}]/gu;

/** The text for one cell or line on a terminal: cleaned, and newlines, tabs and format characters shown as U+FFFD. */
export function terminalText(text: string) {
  return cleanString(text).replace(TERMINAL_ONLY, REPLACEMENT);
}

/** The value with every string in it (object keys included) cleaned; the same value when nothing needed it. */
export function cleanStrings<T>(value: T) {
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
