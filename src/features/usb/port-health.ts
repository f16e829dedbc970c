// A port's health as `list` and `doctor` show it: its failures of today and yesterday (UTC), the phones seen failing on
// it, and the layer a verdict blames. Pure.
import { firstDayOf, type PortRecord } from './port-record.js';
import { covers, describe, LABELS, portView, WINDOW, type Layer, type Verdict } from './attribution.js';
import type { UsbEventKind } from './messages.js';
import { compareStrings } from '../../util/compare.js';

type PortHealth = ReturnType<typeof portHealth>;

/** The port's failures in the window, the phones seen failing on it, and the verdict covering it (the layer to blame). */
export function portHealth(record: PortRecord, verdicts: readonly Verdict[], port: string, now: number) {
  const view = portView(port, record.ports[port], firstDayOf(now));
  const total = view?.total ?? 0;
  const verdict = total > 0 ? verdicts.find((v) => covers(v, port)) : undefined;
  return { port, failures: view?.failures ?? {}, total, phones: view?.failingSerials.size ?? 0, verdict };
}

/** The ports of the record with failures in the window, the most failures first, at most `n`. */
export function worstPorts(record: PortRecord, verdicts: readonly Verdict[], now: number, n: number) {
  return Object.keys(record.ports)
    .map((port) => portHealth(record, verdicts, port, now))
    .filter((h) => h.total > 0)
    .sort((a, b) => b.total - a.total || compareStrings(a.port, b.port))
    .slice(0, n);
}

/** One and several, as the attribution names them, shorter where `list`'s cell needs it: a hub failing its ports together often leaves one failure on each. */
const SHORT: Partial<Record<UsbEventKind, [string, string]>> = { ...LABELS, 'enumeration-failed': ['enum failure', 'enum failures'] };

/** `list`'s cell: "1-1.4.2 ok", "1-1.4.2 14 enum failures/2d (port)" or "1-1.4.2 17 failures/2d (hub)" (several kinds). */
export function healthCell(health: PortHealth) {
  if (health.total === 0) return `${health.port} ok`;
  const kinds = (Object.entries(health.failures) as Array<[UsbEventKind, number]>).filter(([, n]) => n > 0);
  const [kind, n] = kinds.length === 1 ? kinds[0]! : [undefined, health.total];
  const [one, several] = (kind && SHORT[kind]) || ['failure', 'failures'];
  return `${health.port} ${n} ${n === 1 ? one : several}/2d${health.verdict ? ` (${health.verdict.layer.replace('-', ' ')})` : ''}`;
}

const WHAT_TO_DO: Record<Layer, string> = {
  port: 'swap the cable first, then move the phone to another hub port',
  phone: 'take the phone out of the pool and check it and its own cable',
  hub: "check the hub's power supply and its upstream cable, then the hub itself",
  'hub-power': 'give the hub a power supply big enough for its phones, and look for a damaged cable or a phone drawing too much',
  controller: 'spread the hubs over more host controllers (another port group or a PCIe USB card); a controller the kernel found dead needs a reboot',
};

/** `doctor`'s finding for a port with failures (what the record holds), and the advice: the layer a verdict blames and what to do. */
export function healthLine(health: PortHealth) {
  const phones = health.phones === 0 ? '' : ` with ${health.phones} ${health.phones === 1 ? 'phone' : 'different phones'}`;
  const finding = `USB port ${health.port}: ${describe(health.failures)} ${WINDOW}${phones}`;
  const v = health.verdict;
  if (!v) return { finding, advice: 'no layer to blame yet (one phone on one port): watch whether it follows the phone or stays with the port' };
  return { finding, advice: `${v.evidence}; ${v.advice ?? WHAT_TO_DO[v.layer]}` };
}
