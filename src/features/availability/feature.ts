// In-service time as the report and the views see it: every second of every
// phone in one state, each out-of-service second blamed on a layer, per
// phone, port, hub and host: counters on /metrics, the last 24 hours in
// `list` and `doctor`, one summary line a day, kept across restarts. It reads
// what the agent already knows (availability.ts) and offers the phones'
// states to the features that ask (src/devices/phone-state.ts).
import { named } from '../../platforms/doctor.js';
import type { Feature, FeatureContext } from '../context.js';
import { availability } from './availability.js';
import { clockMetrics, dayCell, dayStrip, doctorItems, lastDay } from './views.js';

export function availabilityFeature(ctx: FeatureContext): Feature {
  const a = availability(ctx);
  const { clock } = ctx;
  return {
    name: 'availability',
    start: a.start,
    stop: a.stop,
    // The report's devices as the features before it left them (src/agent/features.ts).
    annotate: (devices, carried) => {
      a.annotated(devices, carried ?? new Map());
      return [...devices];
    },
    reported: a.hear,
    answered: a.answered,
    changed: a.hear,
    acted: a.hear,
    // Before USB, so that READY follows USB and PROBLEMS, free text, closes the table.
    columns: () => (a.clock.phones.size > 0 ? [{ key: 'inService24h', title: 'IN SERVICE 24H', place: { before: 'USB' } }] : []),
    cells: (info): Record<string, string> => {
      const subject = a.clock.phones.get(info.udid);
      const cell = subject && dayCell(lastDay(a.clock, subject, clock.wall(), clock.monotonic()));
      return cell === undefined ? {} : { inService24h: cell };
    },
    // The state each phone is in now and what its being out is blamed on: `list --json`, its series, the page. The rows
    // of one view read one look: the phones' states at one instant, and one look for 200 phones, not one each.
    fields: () => {
      a.lookNow();
      return [{ key: 'inService', place: { after: 'up' }, value: (s) => a.stateOf(s.info.udid) }];
    },
    gauges: () => [
      {
        name: 'device_agent_device_service_state',
        help: 'A device of the last report in the state in-service time counts it in now (in_service, in_transition, auto_recovery, needs_person, quarantined, gone), with the layer its being out is blamed on (empty in service), by udid.',
        place: { after: 'device_agent_device_state' },
        samples: (r) => {
          const now = r.inService as { state: string; layer?: string } | undefined;
          return now ? [{ labels: { udid: r.udid, state: now.state, layer: now.layer ?? '' }, value: 1 }] : [];
        },
      },
    ],
    metrics: () => clockMetrics(a.clock),
    // Its state now and its last 24 hours, hour by hour.
    page: (row) => {
      const subject = a.clock.phones.get(row.udid);
      if (!subject) return undefined;
      const { state, layer, since } = subject.track;
      // To the second: the wall time of a monotonic moment moves with the clocks' drift at every look.
      return {
        inService: {
          state,
          ...(layer && { layer }),
          since: Math.floor(a.wallOf(since) / 1000) * 1000,
          ...dayStrip(a.clock, subject, clock.wall(), clock.monotonic()),
        },
      };
    },
    doctor: { host: () => named('availability', doctorItems(a.clock, clock.wall(), clock.monotonic(), ctx.settings.availability.warnBelowPercent / 100)) },
  };
}
