import type { DeviceRow } from '../status/device-rows.js';
import { noPaint, type Paint } from '../util/paint.js';
import { isTcpSerial } from '../util/tcp-serial.js';
import { utcText } from '../util/clock.js';
import { terminalText } from '../report/clean-strings.js';
import type { FeatureColumn } from '../devices/feature.js';

// `device-agent list` for people: one row per device, columns padded to
// their widest cell. Pure: rows in, text out.

const GiB = 1024 ** 3;

interface Column {
  title: string;
  cell(row: DeviceRow): string;
  paint?(row: DeviceRow, text: string, p: Paint): string;
  /** Left out when no row fills it. */
  optional?: boolean;
}

const columns: Column[] = [
  { title: 'SERIAL', cell: (r) => r.serial },
  { title: 'UDID', cell: (r) => (r.udid === r.serial ? '' : r.udid), optional: true },
  { title: 'STATE', cell: (r) => r.state, paint: (r, t, p) => (r.up ? p.ok(t) : p.warn(t)) },
  { title: 'MODEL', cell: (r) => r.model ?? '' },
  { title: 'OS', cell: (r) => (r.version ? `${r.platform} ${r.version}` : '') },
  { title: 'BATTERY', cell: (r) => (r.batteryPercent === undefined ? '' : `${r.batteryPercent}%`) },
  { title: 'TEMP', cell: (r) => (r.batteryCelsius === undefined ? '' : `${r.batteryCelsius}°C`) },
  { title: 'CHARGING', cell: (r) => (r.charging === undefined ? '' : r.charging ? 'yes' : 'no') },
  {
    title: 'BATTERY HEALTH',
    cell: (r) => batteryHealthOf(r),
    paint: (r, t, p) => (r.problems.some((x) => BATTERY_PROBLEMS.has(x)) ? p.warn(t) : t),
    optional: true,
  },
  { title: 'FREE', cell: (r) => (r.storageFreeBytes === undefined ? '' : `${(r.storageFreeBytes / GiB).toFixed(1)} GiB`) },
  { title: 'USB', cell: (r) => r.usb ?? (isTcpSerial(r.serial) ? 'tcp' : '') },
  { title: 'HUB:PORT', cell: (r) => (r.hub === undefined ? '' : `${r.hub}:${r.hubPort}`), optional: true },
  { title: 'CHARGE', cell: (r) => chargeOf(r), optional: true },
  { title: 'PROBLEMS', cell: (r) => problemsOf(r), paint: (_r, t, p) => (t ? p.bad(t) : t) },
];

const BATTERY_PROBLEMS = new Set(['battery_unhealthy', 'battery_held_full', 'charging_voltage_high', 'battery_worn']);

/** The battery's wear figures where the phone has them: health other than good, state of health, cycles, time held full, the charger. */
function batteryHealthOf(r: DeviceRow): string {
  const parts: string[] = [];
  if (r.batteryHealth && r.batteryHealth !== 'GOOD' && r.batteryHealth !== 'UNKNOWN') parts.push(r.batteryHealth);
  if (r.batteryHealthPercent !== undefined) parts.push(`${r.batteryHealthPercent}%`);
  if (r.batteryCycles !== undefined) parts.push(`${r.batteryCycles} cycles`);
  if (r.batteryFullSeconds) parts.push(`full ${shortDuration(r.batteryFullSeconds)}`);
  if (r.chargerMillivolts !== undefined) parts.push(`${(r.chargerMillivolts / 1000).toFixed(1)} V`);
  return parts.join(', ');
}

function shortDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

/** Health problems, and for a device that is not up, why (its state or its message's gist). */
function problemsOf(r: DeviceRow): string {
  const out = [...r.problems];
  if (!r.up && !r.problems.includes('shell_unresponsive')) out.push(r.state === 'device' || r.state === 'paired' ? 'no_inventory' : r.state.split(' ')[0]!);
  return out.join(',');
}

/** Characters a table cell shows; `list --json` has the whole (bounded) value. */
export const MAX_CELL_CHARS = 120;

function clipCell(text: string): string {
  const chars = [...text];
  return chars.length > MAX_CELL_CHARS ? `${chars.slice(0, MAX_CELL_CHARS - 1).join('')}…` : text;
}

/**
 * The features' columns (readiness, the USB port's health) go before
 * PROBLEMS; a device a feature says nothing of shows "-" there, and a
 * column no device fills is left out.
 */
export function formatTable(rows: readonly DeviceRow[], paint: Paint = noPaint, featureColumns: readonly FeatureColumn[] = []): string {
  if (!rows.length) return 'no devices\n';
  const extra: Column[] = featureColumns
    .filter((f) => rows.some((r) => r.features?.[f.key] !== undefined))
    .map((f) => ({ title: f.title, cell: (r) => r.features?.[f.key] ?? '-' }));
  const all = [...columns.slice(0, -1), ...extra, columns[columns.length - 1]!];
  // A column no row fills (UDID on a USB-only lab, battery health where no phone reports wear) is left out.
  const shown = all.filter((c) => !c.optional || rows.some((r) => c.cell(r) !== ''));
  // Cells hold what devices say about themselves (a model name, adb's serial
  // from a USB descriptor): a control character there would reach the
  // terminal as a command, and a newline or a bidi override would forge or
  // reorder a row, so each is shown as U+FFFD.
  // And each has a width: one long value must not make a row a megabyte (issue 35).
  const cells = rows.map((r) => shown.map((c) => clipCell(terminalText(c.cell(r)))));
  // A fold, not Math.max(...): one argument per row would overflow the stack on a long list.
  const widths = shown.map((c, i) => cells.reduce((w, row) => Math.max(w, row[i]!.length), c.title.length));
  const line = (texts: string[], painted: string[]): string =>
    painted
      .map((t, i) => (i === painted.length - 1 ? t : t + ' '.repeat(widths[i]! - texts[i]!.length)))
      .join('  ')
      .trimEnd();
  const titles = shown.map((c) => c.title);
  const out = [line(titles, titles)];
  rows.forEach((r, ri) => {
    const texts = cells[ri]!;
    out.push(
      line(
        texts,
        texts.map((t, i) => shown[i]!.paint?.(r, t, paint) ?? t),
      ),
    );
  });
  return out.join('\n') + '\n';
}

/** The charge control of a phone: paused (until when at the latest), or the way that applies to it (with its state, for samsung). */
function chargeOf(r: DeviceRow): string {
  if (r.chargePausedUntil !== undefined) return `paused to ${utcText(r.chargePausedUntil).slice(11)}`;
  if (r.chargeState !== undefined) return `${r.chargeWay}:${r.chargeState}`;
  return r.chargeWay ?? '';
}
