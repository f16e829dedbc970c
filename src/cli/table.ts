import type { DeviceRow } from '../status/device-rows.js';
import { noPaint } from '../util/paint.js';
import { isTcpSerial } from '../util/tcp-serial.js';
import { terminalText } from '../report/clean-strings.js';
import { fit } from './progress.js';
import { placed, type FeatureColumn, type RowColumn } from '../devices/feature-view.js';

// `device-agent list` for people: one row per device, columns padded to their widest cell. Pure: rows in, text out. The
// features add their columns (DeviceFeature.columns), each in its place among these.

const GiB = 1024 ** 3;

interface Column extends RowColumn {
  /** Shown only when this says so of the rows (a feature's cell column: when some device has a cell). */
  shown?(rows: readonly DeviceRow[]): boolean;
  /** Its cell made of a feature's, for a feature cell that stands inside it (CellColumn.inside). */
  around?(cell: string, row: DeviceRow): string;
}

const columns: Column[] = [
  { title: 'SERIAL', cell: (r) => r.serial },
  // Shown even where it is the serial: a blank would read as not known.
  { title: 'UDID', cell: (r) => r.udid },
  { title: 'STATE', cell: (r) => r.state, paint: (r, t, p) => (r.up ? p.ok(t) : p.warn(t)) },
  { title: 'MODEL', cell: (r) => r.model ?? '' },
  { title: 'OS', cell: (r) => (r.version ? `${r.platform} ${r.version}` : '') },
  { title: 'BATTERY', cell: (r) => (r.batteryPercent === undefined ? '' : `${r.batteryPercent}%`) },
  { title: 'TEMP', cell: (r) => (r.batteryCelsius === undefined ? '' : `${r.batteryCelsius}°C`) },
  { title: 'CHARGING', cell: (r) => (r.charging === undefined ? '' : r.charging ? 'yes' : 'no') },
  { title: 'FREE', cell: (r) => (r.storageFreeBytes === undefined ? '' : `${(r.storageFreeBytes / GiB).toFixed(1)} GiB`) },
  { title: 'USB', cell: (r) => usbCell(r.usb ?? '', r), around: usbCell },
];

/** Where the phone is plugged: "tcp", or its port (or a feature's word on it), then the mapped hub port where the port does not say it, and the hub's name. */
function usbCell(port: string, r: DeviceRow) {
  const mapped = r.hub === undefined ? undefined : `${r.hub}.${r.hubPort}`;
  const hub = mapped === undefined || port === mapped || port.startsWith(`${mapped} `) ? [] : [`hub ${r.hub}:${r.hubPort}`];
  return [isTcpSerial(r.serial) && 'tcp', port, ...hub, r.hubName].filter(Boolean).join(', ');
}

/** A feature's column as the table shows it: a cell column shows "-" where the feature says nothing, and only when some device has a cell. */
function columnOf(c: FeatureColumn): Column {
  if (!('key' in c)) return c;
  return { title: c.title, cell: (r) => r.features?.[c.key] ?? '-', shown: (rows) => rows.some((r) => r.features?.[c.key] !== undefined) };
}

/** The table's own column with the feature cells that stand in its cell where a device has one (CellColumn.inside). */
function withInside(own: Column, featureColumns: readonly FeatureColumn[]): Column {
  const keys = featureColumns.flatMap((c) => ('key' in c && c.inside === own.title ? [c.key] : []));
  if (!keys.length) return own;
  return {
    ...own,
    cell: (r) => {
      const given = keys.map((key) => r.features?.[key]).find((cell) => cell !== undefined);
      return given === undefined ? own.cell(r) : (own.around?.(given, r) ?? given);
    },
  };
}

/** Characters a table cell shows; `list --json` has the whole (bounded) value. */
export const MAX_CELL_CHARS = 120;

/** The features' columns go where each says, else after the table's own, in registration order; a column no device fills is left out. */
export function formatTable(rows: readonly DeviceRow[], paint = noPaint, featureColumns: readonly FeatureColumn[] = []) {
  if (!rows.length) return 'no devices\n';
  const all = placed(
    columns.map((c) => withInside(c, featureColumns)),
    (c) => c.title,
    featureColumns.flatMap((c) => ('inside' in c && c.inside !== undefined ? [] : [{ place: 'place' in c ? c.place : undefined, item: columnOf(c) }])),
  );
  // A column no row fills (battery wear where no phone reports it, charge control where no phone has it) is left out.
  const shown = all.filter((c) => (c.shown ? c.shown(rows) : !c.optional || rows.some((r) => c.cell(r) !== '')));
  // Cells hold what devices say: a control character would reach the terminal, a newline or bidi override would forge or
  // reorder a row, so each shows as U+FFFD; and each is clipped, so one value cannot make a row a megabyte.
  const cells = rows.map((r) => shown.map((c) => fit(terminalText(c.cell(r)), MAX_CELL_CHARS)));
  // A fold, not Math.max(...): one argument per row would overflow the stack on a long list.
  const widths = shown.map((c, i) => cells.reduce((w, row) => Math.max(w, row[i]!.length), c.title.length));
  const line = (texts: string[], painted: string[]) =>
    painted
      .map((t, i) => (i === painted.length - 1 ? t : t + ' '.repeat(widths[i]! - texts[i]!.length)))
      .join('  ')
      .trimEnd();
  const titles = shown.map((c) => c.title);
  const body = cells.map((texts, ri) =>
    line(
      texts,
      texts.map((t, i) => shown[i]!.paint?.(rows[ri]!, t, paint) ?? t),
    ),
  );
  return [line(titles, titles), ...body].join('\n') + '\n';
}

/** Under the table, each device's message, one line by serial: PROBLEMS and READY give the word, this the sentence. */
export function formatNotes(rows: readonly DeviceRow[]) {
  const notes = rows.flatMap((r) => (r.message ? [`${terminalText(r.serial)}: ${terminalText(r.message.replace(/\s+/g, ' ').trim())}`] : []));
  return notes.length ? `\n${notes.join('\n')}\n` : '';
}
