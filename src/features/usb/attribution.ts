// Which layer failed, from the record per port. Pure. The rules, most
// general first, each port blamed at most once:
//   a controller the kernel found dead, out of devices or bandwidth, or
//     stalling on its commands, or every port of its two or more hubs failing
//                                                 -> the controller
//   over-current on the hub itself, on two or more of its ports, or a power
//     budget the hub cannot meet                  -> the hub's power
//   over-current on one port while the hub's other ports report none
//                                                 -> that port's load: its phone or cable
//   a hub's own requests failing (its port status, its status pipe), or
//     every port of a hub (two or more) failing within minutes of each other
//                                                 -> the hub or its power supply
//   one port failing with two or more phones      -> the port or its cable
//   one phone failing on two or more ports adb or usbmuxd placed it on
//                                                 -> the phone
// Only causes are counted (port-record.ts): what followed a controller's
// death is its consequence, never a limit or a port's failure. Each verdict
// carries the evidence as a sentence a person can check.
import type { UsbEventKind } from './messages.js';
import { hubOfPort, usbBus } from '../../util/usb-path.js';
import { clipText } from './text.js';
import { firstDayOf, type FailureCounts, type PortRecord, type RecordOptions } from './port-record.js';
import { compareStrings } from '../../util/compare.js';

export const LAYERS = ['controller', 'hub-power', 'hub', 'port', 'phone'] as const;
export type Layer = (typeof LAYERS)[number];

export interface Verdict {
  layer: Layer;
  /** The controller, hub, port path or phone serial blamed. */
  subject: string;
  /** The ports the verdict covers: a device on one of them gets the evidence. */
  ports: string[];
  evidence: string;
  /** What to do, when it is not the layer's usual advice (an over-current on one port: its phone or cable). */
  advice?: string;
  /** A hub or hub-power verdict covers every port of its hub; one on a port's load covers that port only. */
  wholeHub?: boolean;
}

export const WINDOW = 'today and yesterday (UTC)';
/** Failures of a hub's ports this close together are "at once". */
const AT_ONCE_MS = 10 * 60_000;
/** A hub's own errors that make a verdict: one can be the hub being unplugged while it was asked (the recorder drops those it sees). */
const HUB_ERRORS = 2;
/** Commands a controller failed to complete that make a verdict: one may be a device holding it. */
const CONTROLLER_ERRORS = 2;

type PortView = NonNullable<ReturnType<typeof portView>>;

/** `now`: wall ms, the window is this UTC day and the one before; the controller of a bus is sysfs's (its usbN link), else the kernel's bus lines', else "bus N". */
export function attribute(record: PortRecord, { now, controllerOfBus }: RecordOptions & { now: number }) {
  const controllerOf = (bus: number) => controllerOfBus?.(bus) ?? record.buses[bus] ?? `bus ${bus}`;
  const first = firstDayOf(now);
  const ports = Object.entries(record.ports)
    .flatMap(([port, entry]) => portView(port, entry, first) ?? [])
    .sort((a, b) => compareStrings(a.port, b.port));
  const covered = new Set<string>();
  const verdicts: Verdict[] = [];
  const claim = (v: Verdict) => {
    verdicts.push(v);
    for (const p of v.ports) covered.add(p);
  };
  const open = (views: PortView[]) => views.filter((v) => !covered.has(v.port));
  const hubs = new Map(Object.entries(record.hubs).map(([hub, entry]) => [hub, sumCounts(inWindow(entry.days, first))]));
  const portsOf = Map.groupBy(ports, (v) => hubOfPort(v.port));

  // Controllers.
  const controllers = Map.groupBy(ports, (v) => controllerOf(usbBus(v.port)!));
  for (const controller of [...new Set([...controllers.keys(), ...Object.keys(record.controllers)])].sort()) {
    const entry = record.controllers[controller];
    const own = sumCounts(inWindow(entry?.days ?? {}, first));
    const after = inWindow(entry?.after ?? {}, first).reduce((a, b) => a + b, 0);
    const onPorts = controllers.get(controller) ?? [];
    const reasons: string[] = [];
    if (own['controller-died']) reasons.push(`the kernel found it dead ${times(own['controller-died'])}${entry?.diedBy ? ` ("${entry.diedBy}")` : ''}`);
    const limits = onPorts.reduce((n, v) => n + (v.failures['controller-limit'] ?? 0), own['controller-limit'] ?? 0);
    if (limits) reasons.push(`out of devices or bandwidth ${times(limits)}`);
    if ((own['controller-error'] ?? 0) >= CONTROLLER_ERRORS) reasons.push(`it failed to complete a command ${times(own['controller-error']!)}`);
    const hubsOn = new Set(onPorts.map((v) => hubOfPort(v.port)));
    if (hubsOn.size >= 2 && onPorts.every((v) => v.total > 0)) reasons.push(`every port on its ${hubsOn.size} hubs failed`);
    if (reasons.length === 0) continue;
    const echoes =
      after > 0 ? `; the ${after} failure ${after === 1 ? 'line' : 'lines'} under it after its death are that death's consequences, not counted` : '';
    claim({
      layer: 'controller',
      subject: controller,
      ports: sortedPorts(onPorts),
      evidence: `controller ${controller}: ${reasons.join(', ')} ${WINDOW}${echoes}: the host controller, not the phones or hubs on it`,
    });
  }

  // The hub's power: over-current on the hub itself or on several of its ports, or a budget it cannot meet.
  for (const hub of [...new Set([...hubs.keys(), ...portsOf.keys()])].sort()) {
    const all = portsOf.get(hub) ?? [];
    const views = open(all);
    const own = hubs.get(hub) ?? {};
    const over = views.filter((v) => v.failures['over-current']);
    const budget = views.reduce((n, v) => n + (v.failures['power-budget'] ?? 0), own['power-budget'] ?? 0);
    // Its ports all under a controller's verdict already: that verdict says it.
    if (!(own['over-current'] || budget || over.length >= 2) || (all.length > 0 && views.length === 0)) continue;
    const parts: string[] = [];
    if (own['over-current']) parts.push(`over-current on the hub itself ${times(own['over-current'])}`);
    if (over.length) parts.push(`over-current on ports ${over.map((v) => `${v.port} (${times(v.failures['over-current']!)})`).join(', ')}`);
    if (budget) parts.push(`more current asked than it can give ${times(budget)}`);
    claim({
      layer: 'hub-power',
      subject: hub,
      ports: sortedPorts(views.filter((v) => v.failures['over-current'] || v.failures['power-budget'])),
      wholeHub: true,
      evidence: `hub ${hub}: ${parts.join(', ')} ${WINDOW}: the hub's power supply (missing, too small or failing), not the phones on it`,
    });
  }

  // Over-current on one port of a hub whose other ports report none: that port's load.
  for (const view of open(ports)) {
    if (!view.failures['over-current']) continue;
    const phones = [...view.failingSerials].map((s) => clipText(s));
    claim({
      layer: 'port',
      subject: view.port,
      ports: [view.port],
      evidence: `port ${view.port}: over-current ${times(view.failures['over-current'])} ${WINDOW} while the other ports of hub ${hubOfPort(view.port)} report none: the phone on it${phones.length ? ` (${phones.join(', ')})` : ''} or its cable draws more than the port gives, not the hub's supply`,
      advice:
        'swap the cable first, then try the phone on another port: if the over-current follows the phone, take it out of the pool (a damaged battery or charging circuit)',
    });
  }

  // Hubs whose own requests fail.
  for (const [hub, counts] of [...hubs].sort(byName)) {
    const n = counts['hub-error'] ?? 0;
    if (n < HUB_ERRORS || verdicts.some((v) => v.wholeHub && v.subject === hub)) continue;
    claim({
      layer: 'hub',
      subject: hub,
      ports: sortedPorts(open(portsOf.get(hub) ?? [])),
      wholeHub: true,
      evidence: `hub ${hub}: its own requests (port status, status pipe) failed ${times(n)} ${WINDOW}: the hub, its upstream cable or its power supply`,
    });
  }

  // Hubs whose every port failed at once.
  for (const [hub, all] of [...portsOf].sort(byName)) {
    const views = open(all);
    if (views.length < 2 || views.length !== all.length || !views.every((v) => v.total > 0 && v.lastFailureAt !== undefined)) continue;
    const at = views.map((v) => v.lastFailureAt!);
    if (Math.max(...at) - Math.min(...at) > AT_ONCE_MS) continue;
    const list = sortedPorts(views);
    claim({
      layer: 'hub',
      subject: hub,
      ports: list,
      wholeHub: true,
      evidence: `hub ${hub}: all ${views.length} of its ports (${list.join(', ')}) failed within ${AT_ONCE_MS / 60_000} min ${WINDOW}: the hub or its power supply`,
    });
  }

  // One port, several phones.
  for (const view of open(ports)) {
    if (view.total < 2 || view.failingSerials.size < 2) continue;
    claim({
      layer: 'port',
      subject: view.port,
      ports: [view.port],
      evidence: `port ${view.port}: ${describe(view.failures)} ${WINDOW} with ${view.failingSerials.size} different phones: the cable or the hub port, not the phone`,
    });
  }

  // One phone, several ports: only ports its source placed it on (adb's usb path, usbmuxd's location), never a serial a device printed.
  const portsOfSerial = Map.groupBy(
    open(ports).flatMap((view) => [...view.failingSerials].filter((serial) => view.linked.has(serial)).map((serial) => ({ serial, view }))),
    (p) => p.serial,
  );
  for (const [serial, placed] of [...portsOfSerial].sort(byName)) {
    const views = placed.map((p) => p.view);
    if (views.length < 2) continue;
    const list = sortedPorts(views);
    claim({
      layer: 'phone',
      subject: serial,
      ports: list,
      evidence: `phone ${clipText(serial)}: failed on ${views.length} different ports (${list.join(', ')}) ${WINDOW}: the phone or its own cable, not the ports`,
    });
  }
  return verdicts;
}

/** Whether a verdict covers this port: it names it, or it is on the port's hub; with `controllerOf`, a controller's covers every port on its buses. */
export function covers(v: Verdict, port: string, controllerOf?: (bus: number) => string) {
  if (v.ports.includes(port)) return true;
  if (v.wholeHub) return hubOfPort(port) === v.subject;
  return v.layer === 'controller' && controllerOf?.(usbBus(port)!) === v.subject;
}

function sortedPorts(views: readonly PortView[]) {
  return views.map((v) => v.port).sort();
}

const byName = ([a]: [string, unknown], [b]: [string, unknown]) => compareStrings(a, b);

/** A port's failures in the window (from day `first` on), the phones seen failing there and those its source placed there; undefined without a day in it. */
export function portView(port: string, entry: PortRecord['ports'][string] | undefined, first: string) {
  const kept = inWindow(entry?.days ?? {}, first);
  if (!entry || kept.length === 0) return undefined;
  const failures = sumCounts(kept.map((d) => d.failures));
  const failingSerials = new Set(kept.flatMap((d) => d.failingSerials));
  const linked = new Set(kept.flatMap((d) => d.linked ?? []));
  const total = Object.values(failures).reduce((a, b) => a + b, 0);
  return { port, failures, total, failingSerials, linked, lastFailureAt: entry.lastFailureAt };
}

/** What a record keeps by day, of the days in the window: `first` and after. */
function inWindow<T>(byDay: Record<string, T>, first: string) {
  return Object.entries(byDay).flatMap(([day, value]) => (day >= first ? [value] : []));
}

function sumCounts(all: readonly FailureCounts[]) {
  const sum: FailureCounts = {};
  for (const counts of all) for (const [kind, n] of Object.entries(counts) as Array<[UsbEventKind, number]>) sum[kind] = (sum[kind] ?? 0) + n;
  return sum;
}

/** Each kind of failure named, one and several. */
export const LABELS: Partial<Record<UsbEventKind, [string, string]>> = {
  'enumeration-failed': ['enumeration failure', 'enumeration failures'],
  reset: ['reset', 'resets'],
  'slow-speed': ['speed fallback', 'speed fallbacks'],
  'over-current': ['over-current', 'over-currents'],
  'power-budget': ['power budget exceeded', 'power budgets exceeded'],
  'controller-limit': ['controller limit', 'controller limits'],
  'hub-port-error': ['hub port error', 'hub port errors'],
};

/** "14 enumeration failures and 2 resets". */
export function describe(failures: FailureCounts) {
  const parts = (Object.entries(failures) as Array<[UsbEventKind, number]>)
    .filter(([kind, n]) => n > 0 && LABELS[kind])
    .sort(([, a], [, b]) => b - a)
    .map(([kind, n]) => `${n} ${LABELS[kind]![n === 1 ? 0 : 1]}`);
  return parts.length <= 1 ? (parts[0] ?? 'failures') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
}

function times(n: number) {
  return n === 1 ? 'once' : `${n} times`;
}
