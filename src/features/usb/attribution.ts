// Which layer failed, from the record per port. Pure. The rules, most
// general first, each port blamed at most once:
//   a controller the kernel found dead or out of devices/bandwidth, or every
//     port of its two or more hubs failing       -> the controller
//   over-current on a port                        -> the hub's power
//   every port of a hub (two or more) failing within minutes of each other
//                                                 -> the hub or its power supply
//   one port failing with two or more phones      -> the port or its cable
//   one phone failing on two or more ports        -> the phone
// Each verdict carries the evidence as a sentence a person can check.
import { busOf, hubOf, type UsbEventKind } from './classify.js';
import { windowOf, type DayWindow, type FailureCounts, type PortRecord } from './port-record.js';

export type Layer = 'controller' | 'hub-power' | 'hub' | 'port' | 'phone';

export interface Verdict {
  layer: Layer;
  /** The controller, hub, port path or phone serial blamed. */
  subject: string;
  /** The ports the verdict covers: a device on one of them gets the evidence. */
  ports: string[];
  evidence: string;
}

export interface AttributionOptions {
  /** Wall ms now: the window is this UTC day and the one before. */
  now: number;
  /** The controller of a bus (sysfs's usbN link); "bus N" when unknown. */
  controllerOfBus?: (bus: number) => string;
  /** Failures of a hub's ports this close together are "at once". */
  atOnceMs?: number;
}

export const WINDOW = 'today and yesterday (UTC)';
const AT_ONCE_MS = 10 * 60_000;

interface PortView {
  port: string;
  failures: FailureCounts;
  total: number;
  failingSerials: Set<string>;
  lastFailureAt: number | undefined;
}

export function attribute(record: PortRecord, options: AttributionOptions): Verdict[] {
  const controllerOf = (port: string): string => options.controllerOfBus?.(busOf(port)) ?? `bus ${busOf(port)}`;
  const atOnce = options.atOnceMs ?? AT_ONCE_MS;
  const days = windowOf(options.now);
  const ports = portViews(record, days);
  const covered = new Set<string>();
  const verdicts: Verdict[] = [];
  const claim = (v: Verdict): void => {
    verdicts.push(v);
    for (const p of v.ports) covered.add(p);
  };

  // Controllers.
  const controllers = new Map<string, PortView[]>();
  for (const view of ports.values()) push(controllers, controllerOf(view.port), view);
  const controllerNames = new Set([...controllers.keys(), ...Object.keys(record.controllers)]);
  for (const controller of [...controllerNames].sort()) {
    const own = sumDays(record.controllers[controller]?.days ?? {}, days);
    const onPorts = controllers.get(controller) ?? [];
    const limitOnPorts = onPorts.reduce((n, v) => n + (v.failures['controller-limit'] ?? 0), 0);
    const reasons: string[] = [];
    if (own['controller-died']) reasons.push(`the kernel found it dead ${times(own['controller-died'])}`);
    const limits = (own['controller-limit'] ?? 0) + limitOnPorts;
    if (limits) reasons.push(`out of devices or bandwidth ${times(limits)}`);
    const hubs = new Set(onPorts.map((v) => hubOf(v.port)));
    if (hubs.size >= 2 && onPorts.every((v) => v.total > 0)) reasons.push(`every port on its ${hubs.size} hubs failed`);
    if (reasons.length === 0) continue;
    claim({
      layer: 'controller',
      subject: controller,
      ports: onPorts.map((v) => v.port).sort(),
      evidence: `controller ${controller}: ${reasons.join(', ')} ${WINDOW}: the host controller, not the phones or hubs on it`,
    });
  }

  // Over-current: the hub's power.
  const overCurrent = new Map<string, PortView[]>();
  for (const view of ports.values()) if (!covered.has(view.port) && view.failures['over-current']) push(overCurrent, hubOf(view.port), view);
  for (const [hub, views] of [...overCurrent].sort(([a], [b]) => a.localeCompare(b))) {
    const where = views.map((v) => `${v.port} (${times(v.failures['over-current']!)})`).join(', ');
    claim({
      layer: 'hub-power',
      subject: hub,
      ports: views.map((v) => v.port).sort(),
      evidence: `hub ${hub}: over-current on port ${where} ${WINDOW}: the hub's power supply, or a phone drawing more than the port gives`,
    });
  }

  // Hubs whose every port failed at once.
  const hubs = new Map<string, PortView[]>();
  for (const view of ports.values()) if (!covered.has(view.port)) push(hubs, hubOf(view.port), view);
  for (const [hub, views] of [...hubs].sort(([a], [b]) => a.localeCompare(b))) {
    if (views.length < 2 || !views.every((v) => v.total > 0 && v.lastFailureAt !== undefined)) continue;
    const times_ = views.map((v) => v.lastFailureAt!);
    if (Math.max(...times_) - Math.min(...times_) > atOnce) continue;
    claim({
      layer: 'hub',
      subject: hub,
      ports: views.map((v) => v.port).sort(),
      evidence: `hub ${hub}: all ${views.length} of its ports (${views
        .map((v) => v.port)
        .sort()
        .join(', ')}) failed within ${Math.round(atOnce / 60_000)} min ${WINDOW}: the hub or its power supply`,
    });
  }

  // One port, several phones.
  for (const view of [...ports.values()].sort((a, b) => a.port.localeCompare(b.port))) {
    if (covered.has(view.port) || view.total < 2 || view.failingSerials.size < 2) continue;
    claim({
      layer: 'port',
      subject: view.port,
      ports: [view.port],
      evidence: `port ${view.port}: ${describe(view.failures)} ${WINDOW} with ${view.failingSerials.size} different phones: the cable or the hub port, not the phone`,
    });
  }

  // One phone, several ports.
  const portsOfSerial = new Map<string, PortView[]>();
  for (const view of ports.values()) {
    if (covered.has(view.port)) continue;
    for (const serial of view.failingSerials) push(portsOfSerial, serial, view);
  }
  for (const [serial, views] of [...portsOfSerial].sort(([a], [b]) => a.localeCompare(b))) {
    if (views.length < 2) continue;
    const list = views.map((v) => v.port).sort();
    verdicts.push({
      layer: 'phone',
      subject: serial,
      ports: list,
      evidence: `phone ${serial}: failed on ${views.length} different ports (${list.join(', ')}) ${WINDOW}: the phone or its own cable, not the ports`,
    });
  }
  return verdicts;
}

function portViews(record: PortRecord, days: DayWindow): Map<string, PortView> {
  const out = new Map<string, PortView>();
  for (const [port, entry] of Object.entries(record.ports)) {
    const inWindow = Object.entries(entry.days).filter(([day]) => days.has(day));
    if (inWindow.length === 0) continue;
    const failures = sumDays(entry.days, days);
    const failingSerials = new Set(inWindow.flatMap(([, d]) => d.failingSerials));
    const total = Object.values(failures).reduce((a, b) => a + (b ?? 0), 0);
    out.set(port, { port, failures, total, failingSerials, lastFailureAt: entry.lastFailureAt });
  }
  return out;
}

function sumDays(byDay: Record<string, FailureCounts | { failures: FailureCounts }>, days: DayWindow): FailureCounts {
  const sum: FailureCounts = {};
  for (const [day, value] of Object.entries(byDay)) {
    if (!days.has(day)) continue;
    const counts: FailureCounts = 'failures' in value ? value.failures : value;
    for (const [kind, n] of Object.entries(counts) as Array<[UsbEventKind, number]>) sum[kind] = (sum[kind] ?? 0) + n;
  }
  return sum;
}

const LABELS: Partial<Record<UsbEventKind, [string, string]>> = {
  'enumeration-failed': ['enumeration failure', 'enumeration failures'],
  reset: ['reset', 'resets'],
  'slow-speed': ['speed fallback', 'speed fallbacks'],
  'over-current': ['over-current', 'over-currents'],
  'controller-limit': ['controller limit', 'controller limits'],
  'hub-port-error': ['hub port error', 'hub port errors'],
};

/** "14 enumeration failures and 2 resets". */
export function describe(failures: FailureCounts): string {
  const parts = (Object.entries(failures) as Array<[UsbEventKind, number]>)
    .filter(([kind, n]) => n > 0 && LABELS[kind])
    .sort(([, a], [, b]) => b - a)
    .map(([kind, n]) => `${n} ${LABELS[kind]![n === 1 ? 0 : 1]}`);
  return parts.length <= 1 ? (parts[0] ?? 'failures') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
