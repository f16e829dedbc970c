// What the in-service clock shows: a phone's last 24 hours in `list`, the
// host's, its worst phones' and ports' in `doctor`, the day's summary line,
// and the counters on /metrics (bounded labels: the phones, ports and hubs
// it follows, each bounded in clock.ts; the states and layers, closed lists).
import type { CheckResult } from '../../platforms/doctor.js';
import type { Metric, Sample } from '../../util/metric.js';
import { docPath } from '../../util/package.js';
import type { InServiceClock, Subject } from './clock.js';
import { HOUR_MS, IN_SERVICE, inServiceShare, outByLayer, partsOf, type Seconds } from './tally.js';

/** "97.4%", to a tenth; never 100.0% for a share short of it, nor 0.0% for one above nothing. */
export function percent(share: number) {
  const tenths = Math.min(share < 1 ? 999 : 1000, Math.max(share > 0 ? 1 : 0, Math.round(share * 1000)));
  return `${(tenths / 10).toFixed(1)}%`;
}

/** The start of the last 24 hours (by the hour): the hour now began, and the 23 before it. */
const dayFrom = (nowWall: number) => Math.floor(nowWall / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;

/** A phone's seconds of the last 24 hours (by the hour), with its time in service not credited yet. */
export function lastDay(clock: InServiceClock, subject: Subject, nowWall: number, nowMono: number) {
  const s = subject.tally.within(dayFrom(nowWall));
  const tail = clock.uncredited(subject, nowMono);
  if (tail > 0) s[IN_SERVICE] = (s[IN_SERVICE] ?? 0) + tail;
  return s;
}

/** A phone's last 24 hours hour by hour, oldest first, for the status page's strip: each hour's whole minutes by slot, the time in service not credited yet in the last, up to the minute now began (so that the page's data changes once a minute, not every second). */
export function dayStrip(clock: InServiceClock, subject: Subject, nowWall: number, nowMono: number) {
  const from = dayFrom(nowWall);
  const hours: Seconds[] = Array.from({ length: 24 }, () => ({}));
  for (const h of subject.tally.hours) {
    const i = (h.start - from) / HOUR_MS;
    if (i >= 0 && i < 24) for (const [slot, secs] of Object.entries(h.by)) hours[i]![slot] = secs;
  }
  // Up to the minute now began: every phone's in-service minutes step together, once a minute, not each at its own second.
  const tail = clock.uncredited(subject, nowMono - (nowWall % 60_000));
  if (tail > 0) hours[23]![IN_SERVICE] = (hours[23]![IN_SERVICE] ?? 0) + tail;
  const minutes = (h: Seconds) => Object.fromEntries(Object.entries(h).flatMap(([slot, secs]) => (secs >= 60 ? [[slot, Math.floor(secs / 60)]] : [])));
  return { from, hours: hours.map(minutes) };
}

/** `list`'s cell: the share in service over the last 24 hours, and the layer most of the rest is blamed on. */
export function dayCell(s: Seconds) {
  const share = inServiceShare(s);
  if (share === undefined) return undefined;
  const [worst] = outByLayer(s);
  return share >= 0.9995 || !worst ? percent(share) : `${percent(share)} ${worst[0]}`;
}

function outWords(s: Seconds) {
  const all = Object.values(s).reduce((a, b) => a + b, 0);
  return outByLayer(s)
    .slice(0, 4)
    .map(([layer, secs]) => `${layer} ${percent(secs / all)}`)
    .join(', ');
}

/** The host, its worst phones and its worst ports over the last 24 hours, for `doctor`. */
export function doctorItems(clock: InServiceClock, nowWall: number, nowMono: number, warnBelow: number): CheckResult[] {
  const from = dayFrom(nowWall);
  const phones = [...clock.phones.values()].map((p) => ({ serial: p.track.serial, s: lastDay(clock, p, nowWall, nowMono) }));
  const host: Seconds = {};
  for (const { s } of phones) for (const [k, v] of Object.entries(s)) host[k] = (host[k] ?? 0) + v;
  const share = inServiceShare(host);
  if (share === undefined)
    return [{ status: 'ok', finding: 'in-service time: nothing counted yet (the daemon counts it, and keeps it in the state directory)' }];
  const items: CheckResult[] = [
    {
      status: share < warnBelow ? 'warn' : 'ok',
      finding:
        `in service ${percent(share)} of the last 24 hours, ${phones.length} phone${phones.length === 1 ? '' : 's'}` +
        (share < 0.9995 ? `; out of service: ${outWords(host)}` : ''),
      ...(share < warnBelow && {
        advice: `the layer most of it is blamed on says where to look: device-agent list (the IN SERVICE 24H column), device-agent incidents, ${docPath('docs/operations/availability.md')}`,
      }),
    },
  ];
  const least = leastInService(phones);
  if (least) items.push({ status: 'ok', finding: `least in service: ${least}` });
  const worstPorts = outlyingPorts(clock, from);
  if (worstPorts.length > 0)
    items.push({
      status: 'warn',
      finding: `port${worstPorts.length === 1 ? '' : 's'} whose phones are out more than the others on their hub: ${worstPorts.map((w) => `${w.port} ${percent(w.x)} (hub ${w.hub} ${percent(w.hubShare)})`).join(', ')}`,
      advice: 'swap the cable or the port: a phone that stays out on another port is the phone, one that recovers was the port',
    });
  return items;
}

/** The three phones least in service, each with the layer most of its time out is blamed on: "R58M 97.4% (phone), ..." ('' when none is out). */
function leastInService(phones: ReadonlyArray<{ serial: string; s: Seconds }>) {
  return phones
    .flatMap(({ serial, s }) => {
      const x = inServiceShare(s);
      return x !== undefined && x < 0.9995 ? [{ serial, x, layer: outByLayer(s)[0]?.[0] }] : [];
    })
    .sort((a, b) => a.x - b.x)
    .slice(0, 3)
    .map((w) => `${w.serial} ${percent(w.x)}${w.layer ? ` (${w.layer})` : ''}`)
    .join(', ');
}

/** The ports out of service over the hours from `from` to `to` at least 10 points more than the mean of the other ports of their hub (with two ports at least). */
function outlyingPorts(clock: InServiceClock, from: number, to?: number) {
  const ports = [...clock.ports].flatMap(([port, { hub, tally }]) => {
    const x = inServiceShare(tally.within(from, to));
    return x !== undefined ? [{ port, hub, x }] : [];
  });
  return ports
    .flatMap((p) => {
      const others = ports.filter((q) => q.hub === p.hub && q.port !== p.port);
      const hubShare = others.reduce((a, q) => a + q.x, 0) / others.length;
      return others.length > 0 && hubShare - p.x >= 0.1 ? [{ ...p, hubShare }] : [];
    })
    .sort((a, b) => a.x - b.x)
    .slice(0, 3);
}

/** The day's line: the host's share, the layers, the worst phones and ports; undefined when nothing was counted that day. */
export function daySummary(clock: InServiceClock, from: number, to: number) {
  const host = clock.host.within(from, to);
  const share = inServiceShare(host);
  if (share === undefined) return undefined;
  const phones = [...clock.phones.values()].flatMap((p) => {
    const s = p.tally.within(from, to);
    return inServiceShare(s) !== undefined ? [{ serial: p.track.serial, s }] : [];
  });
  const least = leastInService(phones);
  const ports = outlyingPorts(clock, from, to);
  const day = new Date(from).toISOString().slice(0, 10);
  return {
    fields: { day, inService: Math.round(share * 10_000) / 10_000, phones: phones.length, out: Object.fromEntries(outByLayer(host)) },
    text:
      `in service on ${day}: ${percent(share)} of the time of ${phones.length} phone${phones.length === 1 ? '' : 's'}` +
      (share < 0.9995 ? `; out of service: ${outWords(host)}` : '') +
      (least ? `; least in service: ${least}` : '') +
      (ports.length ? `; ports out more than their hub: ${ports.map((p) => `${p.port} ${percent(p.x)}`).join(', ')}` : ''),
  };
}

export const AVAILABILITY_SECONDS = 'device_agent_availability_seconds_total';
export const PORT_SECONDS = 'device_agent_port_availability_seconds_total';
export const HUB_SECONDS = 'device_agent_hub_availability_seconds_total';

function samples(s: Seconds, labels: Record<string, string>, by: 'slot' | 'state' | 'in_service') {
  const out = new Map<string, Sample>();
  for (const [slot, secs] of Object.entries(s)) {
    const { state, layer } = partsOf(slot);
    const l: Record<string, string> =
      by === 'slot' ? { state, layer: layer ?? 'none' } : by === 'state' ? { state } : { in_service: state === 'in_service' ? 'true' : 'false' };
    const id = JSON.stringify(l);
    const had = out.get(id);
    if (had) had.value += secs;
    else out.set(id, { labels: { ...labels, ...l }, value: secs });
  }
  return [...out.values()];
}

/** The counters: the host by state and layer, each phone by state, each port and hub in service or not; and the phones in each state now. */
export function clockMetrics(clock: InServiceClock): Metric[] {
  const byState = Map.groupBy(clock.phones.values(), ({ track }) => track.state);
  return [
    {
      name: AVAILABILITY_SECONDS,
      help: "The host's phones' seconds by state (in_service, in_transition, auto_recovery, needs_person, quarantined, gone) and the layer an out-of-service second is blamed on (none while in service), kept across restarts.",
      type: 'counter',
      samples: samples(clock.host.totals, {}, 'slot'),
    },
    {
      name: 'device_agent_phone_availability_seconds_total',
      help: "Each phone's seconds by state, kept across restarts; served while the phone is reported (its series go with its UNPLUGGED report, as every phone's do, and come back with it), forgotten a day after it left.",
      type: 'counter',
      samples: [...clock.phones.values()].filter((p) => p.track.state !== 'gone').flatMap((p) => samples(p.tally.totals, { udid: p.track.udid }, 'state')),
    },
    {
      name: PORT_SECONDS,
      help: "The seconds of the phones on each USB port, in service or not, with the port's hub, kept across restarts.",
      type: 'counter',
      samples: [...clock.ports].flatMap(([port, { hub, tally }]) => samples(tally.totals, { hub, port }, 'in_service')),
    },
    {
      name: HUB_SECONDS,
      help: 'The seconds of the phones on each USB hub, in service or not, kept across restarts.',
      type: 'counter',
      samples: [...clock.hubs].flatMap(([hub, tally]) => samples(tally.totals, { hub }, 'in_service')),
    },
    {
      name: 'device_agent_phones_by_state',
      help: 'The phones in each state now.',
      type: 'gauge',
      samples: [...byState].map(([state, phones]) => ({ labels: { state }, value: phones.length })),
    },
  ];
}
