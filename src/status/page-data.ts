// The status page's data (/api/devices, /api/phone): the device rows exactly as `list --json` prints them, what the
// features show beyond them (DeviceFeature.page), and the host laid out as the lab is: USB buses, hubs, ports, and the
// phones on no port in groups of their own; the phones that need someone first. Pure: the views hand it the rows. It
// holds no time of its own, so that it changes only when what it shows does (the page asks with its ETag).
import type { DeviceRow } from '../devices/feature-view.js';
import { compareStrings } from '../util/compare.js';
import { isTcpSerial } from '../util/tcp-serial.js';
import { hubOfPort, usbBus } from '../util/usb-path.js';

/** What the page says of the host: whose agent, whether healthy (/healthz's words), its reports. */
export interface PageHost {
  node: string;
  agentVersion: string;
  healthy: boolean;
  problems: readonly string[];
  lastReportAt?: number;
  /** The last report failed (wall ms), and none was delivered since. */
  reportFailedAt?: number;
}

/** A phone's place in the layout, by its index in `rows`. */
export interface RackPage {
  host: PageHost;
  rows: readonly DeviceRow[];
  /** What the features show of each row beyond it, by index. */
  more: ReadonlyArray<Record<string, unknown>>;
  rack: Array<{ bus: number; hubs: Array<{ hub: string; name?: string; ports: Array<{ port: string; rows: number[] }> }> }>;
  groups: Array<{ title: string; rows: number[] }>;
  /** How badly each row needs someone (troubleOf), by index. */
  trouble: Array<0 | 1 | 2>;
  /** The rows that need someone, worst first. */
  attention: number[];
}

export interface PhonePage {
  host: PageHost;
  row: DeviceRow;
  more: Record<string, unknown>;
  /** What to do about it, worst first. */
  todo: string[];
}

/** The parts of `more` the page reads (each feature's, DeviceFeature.page). */
interface Shown {
  inService?: { state: string; layer?: string; since: number };
  quarantine?: { until: number; reason?: string; release: string };
  incidents?: Array<{ at: number; kind: string }>;
}

/** How badly a phone needs someone: 2 out of service (or quarantined, or in an open incident), 1 something to look at, 0 nothing. */
export function troubleOf(row: DeviceRow, more: Record<string, unknown>) {
  const m = more as Shown;
  if (m.quarantine || openIncident(more) || !row.up) return 2;
  const problems = row.problems as unknown[] | undefined;
  if (row.features?.readiness?.startsWith('not ready') || problems?.length || wearDue(row)) return 1;
  return 0;
}

/** Its wear, when the phone is due for replacing within 30 days. */
function wearDue(row: DeviceRow) {
  const wear = row.wear as { daysLeft?: number; reason?: string } | undefined;
  return wear?.daysLeft !== undefined && wear.daysLeft <= 30 ? wear : undefined;
}

/** Its newest incident, while the phone has not been back in service since it began. */
export function openIncident(more: Record<string, unknown>) {
  const { inService, incidents } = more as Shown;
  const newest = incidents?.[0];
  if (!newest || !inService || inService.state === 'in_service') return undefined;
  // Named to the second: out since the same second or before.
  return inService.since < newest.at + 1000 ? newest : undefined;
}

export function rackPage(
  rows: readonly DeviceRow[],
  more: ReadonlyArray<Record<string, unknown>>,
  hubNames: ReadonlyMap<string, string>,
  host: PageHost,
): RackPage {
  // Sort keys that order the numbers in a name by value ("1-1.10" after "1-1.9").
  const keys = rows.map((r) => (r.usb ?? r.serial).replace(/\d+/g, (d) => d.padStart(10, '0')));
  const order = rows.map((_, i) => i).sort((a, b) => compareStrings(keys[a]!, keys[b]!));
  // A phone on a USB port under its bus, hub and port, any other in a group of its own; each list in the order above.
  const { plugged = [], other = [] } = Object.groupBy(order, (i) => (usbBus(rows[i]!.usb) === undefined ? 'other' : 'plugged'));
  const portOf = (i: number) => rows[i]!.usb!;
  const groups = [...Map.groupBy(other, (i) => (isTcpSerial(rows[i]!.serial) ? 'network phones' : `${rows[i]!.platform} phones`))].map(([title, rows]) => ({
    title,
    rows,
  }));
  const rack = [...Map.groupBy(plugged, (i) => usbBus(portOf(i))!)]
    .sort(([a], [b]) => a - b)
    .map(([bus, onBus]) => ({
      bus,
      hubs: [...Map.groupBy(onBus, (i) => hubOfPort(portOf(i)))].map(([hub, onHub]) => {
        const name = hubNames.get(hub);
        return { hub, ...(name && { name }), ports: [...Map.groupBy(onHub, portOf)].map(([port, rows]) => ({ port, rows })) };
      }),
    }));
  const trouble = rows.map((row, i) => troubleOf(row, more[i] ?? {}));
  const attention = order.filter((i) => trouble[i]! > 0).sort((a, b) => trouble[b]! - trouble[a]!);
  return { host, rows, more, rack, groups, trouble, attention };
}

const clock = (at: number) => `${new Date(at).toISOString().slice(11, 16)}Z`;

export function phonePage(row: DeviceRow, more: Record<string, unknown>, host: PageHost) {
  const m = more as Shown;
  const todo: string[] = [];
  if (m.quarantine)
    todo.push(
      `It is quarantined until ${clock(m.quarantine.until)} (${m.quarantine.reason ?? 'it kept failing'}) and comes back on its own once a check passes after then. To put it back now: ${m.quarantine.release}`,
    );
  const incident = openIncident(more);
  if (incident) todo.push(`An incident (${incident.kind}) began at ${clock(incident.at)}: device-agent incidents ${row.serial} shows what happened before it`);
  if (row.message) todo.push(`Its message says what is wrong and what to do: ${row.message}`);
  const wear = wearDue(row);
  if (wear) todo.push(`Wear: ${wear.reason ?? 'due'} in about ${wear.daysLeft} days; plan to replace it`);
  if (!todo.length) todo.push(row.up ? 'Nothing: it is in service.' : `Nothing the agent knows of yet: it is ${row.state}.`);
  return { host, row, more, todo };
}
