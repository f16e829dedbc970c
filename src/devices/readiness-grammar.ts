// What a readiness value is: the grammar of each kind of value (a text outside it is unread, never passed or failed),
// and how a value read meets the lab's expected one. Readiness's checks and its fix read values by it, so that what
// one calls unread the other never writes over. Pure.
//
// The catalogue, from the readers' source:
// - flag: `Settings.Global/System.getInt(cr, NAME, def)` parses with Java's Integer.parseInt and falls back to the
//   caller's default on anything else ("", "1.0", " 1", "true"); the readers of these settings take 0 and 1 (some `!=
//   0`, some `== 1`, some `> 0`), so only 0 and 1 are read here, and any other text is unread.
// - scale: `Settings.Global.getFloat` (Float.parseFloat, default on a NumberFormatException), clamped by
//   WindowManagerService.fixScale to 0..20: a finite decimal is read at its clamped value; NaN, Infinity and garbage
//   are unread.
// - plugged: `stay_on_while_plugged_in` is a bit mask of the power sources the screen stays on for
//   (BatteryManager.BATTERY_PLUGGED_AC=1, USB=2, WIRELESS=4, DOCK=8 from Android 13; PowerManagerService stays awake
//   when `setting & plugType` is not 0). A phone on a lab's USB cable stays awake only with the USB bit: `on` is that
//   bit, `off` is 0.
// - wifi: `wifi_on` is WifiSettingsStore's persisted state: 0 disabled, 1 enabled, 2 enabled in airplane mode, 3
//   disabled by airplane mode; `on` is 1 or 2, `off` 0 or 3, anything else unread.
// - boolean: `true` or `false` (the keyguard's `secure=`, lockdown's facts).
// - version: a dotted version, within `MIN..MAX`.

/** A kind of value, as its reader in the framework takes it. */
export type ValueKind = 'flag' | 'scale' | 'plugged' | 'wifi' | 'boolean' | 'version';

/** Java's Integer.parseInt grammar, within an int: the text of a flag or mask; undefined otherwise. */
function javaInt(text: string) {
  if (!/^[+-]?\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= -2_147_483_648 && n <= 2_147_483_647 ? n : undefined;
}

/** A finite decimal as a setting holds a scale; undefined otherwise. */
function decimal(text: string) {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

const BIT_USB = 2;

/** The value as the check reads it, normalised ("01" is 1, "0.0" is 0), or undefined when outside its grammar: unread. */
export function readValue(kind: ValueKind, text: string) {
  switch (kind) {
    case 'flag': {
      const n = javaInt(text);
      return n === 0 || n === 1 ? String(n) : undefined;
    }
    case 'scale': {
      const n = decimal(text);
      return n === undefined ? undefined : String(Math.min(Math.max(n, 0), 20));
    }
    case 'plugged': {
      const n = javaInt(text);
      return n === undefined ? undefined : String(n);
    }
    case 'wifi': {
      const n = javaInt(text);
      return n !== undefined && n >= 0 && n <= 3 ? String(n) : undefined;
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? text : undefined;
    case 'version':
      return versionParts(text) ? text : undefined;
  }
}

/** Whether a value read (readValue's) meets `expected` (the baseline's, as the lab wrote it). */
export function meetsValue(kind: ValueKind, value: string, expected: string) {
  switch (kind) {
    case 'plugged': {
      const n = Number(value);
      if (expected === 'on') return (n & BIT_USB) !== 0;
      if (expected === 'off') return n === 0;
      const want = javaInt(expected);
      return want !== undefined && want === n;
    }
    case 'wifi': {
      const on = value === '1' || value === '2';
      if (expected === 'on' || expected === '1') return on;
      if (expected === 'off' || expected === '0') return !on;
      return value === expected;
    }
    case 'scale': {
      const want = decimal(expected);
      return want !== undefined && Number(value) === Math.min(Math.max(want, 0), 20);
    }
    case 'flag': {
      const want = javaInt(expected);
      return want !== undefined && Number(value) === want;
    }
    case 'version':
      return inRange(value, expected);
    case 'boolean':
      return value === expected;
  }
}

/** What a plugged mask names, for people: "AC, USB, wireless", "AC only, asleep on USB", "off". */
function pluggedNote(value: string) {
  const n = Number(value);
  if (n === 0) return 'off';
  const names = [
    [1, 'AC'],
    [2, 'USB'],
    [4, 'wireless'],
    [8, 'dock'],
  ] as const;
  const on = names.filter(([bit]) => (n & bit) !== 0).map(([, name]) => name);
  const sources = on.length === 0 ? 'no power source' : on.length === 1 ? `${on[0]!} only` : on.join(', ');
  return (n & BIT_USB) === 0 ? `${sources}, asleep on USB` : sources;
}

/** What the message adds to a value read, after the key it was read from; undefined when the value says it all. */
export function valueNote(kind: ValueKind, value: string) {
  if (kind === 'plugged') return pluggedNote(value);
  if (kind === 'wifi') return value === '2' ? 'on in airplane mode' : value === '3' ? 'off by airplane mode' : undefined;
  return undefined;
}

/** The expected value as a message shows it ("on over USB"). */
export function expectedText(kind: ValueKind, expected: string) {
  if (kind === 'plugged' && expected === 'on') return 'on over USB';
  return expected;
}

/** A dotted version's numeric parts ("16.3.1" → [16, 3, 1]); undefined when it is not one. */
function versionParts(text: string) {
  return /^\d+(\.\d+)*$/.test(text) ? text.split('.').map(Number) : undefined;
}

/** -1, 0 or 1 comparing `version` with `bound` on the parts the bound names. */
function compareOnBound(version: readonly number[], bound: readonly number[]) {
  for (let i = 0; i < bound.length; i++) {
    const d = (version[i] ?? 0) - bound[i]!;
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Whether `version` is within `MIN..MAX` (either end optional; an odd range or version is never within). */
export function inRange(version: string, range: string) {
  const m = /^([\d.]*)\.\.([\d.]*)$/.exec(range.trim());
  const v = versionParts(version);
  if (!m || !v) return false;
  const [min, max] = [m[1] ? versionParts(m[1]) : [], m[2] ? versionParts(m[2]) : []];
  if (!min || !max) return false;
  return compareOnBound(v, min) >= 0 && (max.length === 0 || compareOnBound(v, max) <= 0);
}

/** Whether `version` is at least `since` (both dotted; an odd one is not). */
export function atLeast(version: string, since: string) {
  return inRange(version, `${since}..`);
}
