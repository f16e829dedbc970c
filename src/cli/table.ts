import type { DeviceRow } from '../status/device-rows.js';
import { noPaint, type Paint } from '../util/paint.js';
import { isTcpSerial } from '../util/tcp-serial.js';
import { terminalText } from '../report/clean-strings.js';
import { placed, type FeatureColumn, type RowColumn } from '../devices/feature-view.js';

// `device-agent list` for people: one row per device, columns padded to
// their widest cell. Pure: rows in, text out. The features add their columns
// (DeviceFeature.columns), each in its place among these.

const GiB = 1024 ** 3;

interface Column extends RowColumn {
  /** Shown only when this says so of the rows (a feature's cell column: when some device has a cell). */
  shown?(rows: readonly DeviceRow[]): boolean;
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
  { title: 'FREE', cell: (r) => (r.storageFreeBytes === undefined ? '' : `${(r.storageFreeBytes / GiB).toFixed(1)} GiB`) },
  { title: 'USB', cell: (r) => r.usb ?? (isTcpSerial(r.serial) ? 'tcp' : '') },
  { title: 'HUB:PORT', cell: (r) => (r.hub === undefined ? '' : `${r.hub}:${r.hubPort}`), optional: true },
];

/** A feature's column as the table shows it: a cell column shows "-" where the feature says nothing, and only when some device has a cell. */
function columnOf(c: FeatureColumn): Column {
  if (!('key' in c)) return c;
  return { title: c.title, cell: (r) => r.features?.[c.key] ?? '-', shown: (rows) => rows.some((r) => r.features?.[c.key] !== undefined) };
}

/** Characters a table cell shows; `list --json` has the whole (bounded) value. */
export const MAX_CELL_CHARS = 120;

function clipCell(text: string): string {
  const chars = [...text];
  return chars.length > MAX_CELL_CHARS ? `${chars.slice(0, MAX_CELL_CHARS - 1).join('')}…` : text;
}

/** The features' columns go where each says, else after the table's own, in registration order; a column no device fills is left out. */
export function formatTable(rows: readonly DeviceRow[], paint: Paint = noPaint, featureColumns: readonly FeatureColumn[] = []): string {
  if (!rows.length) return 'no devices\n';
  const all = placed(
    columns,
    (c) => c.title,
    featureColumns.map((c) => ({ place: 'place' in c ? c.place : undefined, item: columnOf(c) })),
  );
  // A column no row fills (UDID on a USB-only lab, battery health where no phone reports wear) is left out.
  const shown = all.filter((c) => (c.shown ? c.shown(rows) : !c.optional || rows.some((r) => c.cell(r) !== '')));
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
