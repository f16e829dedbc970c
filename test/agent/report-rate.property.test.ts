import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../support/property-runs.js';
import { reportBed } from './bed.js';

// The report rate bound of docs/design/fleet.md on the whole report path
// (the real registry, report loop, planner, scheduler and reporter on
// virtual time), on random sequences of plugs, unplugs, bursts of arrivals, departures and flaps,
// inventories that fail, schedule ticks (every minute) and cloud outages:
// - at most 14 PUTs in any 60 s: 12 on the report budget and the schedule's
//   ticks, two when one was held 50 ms by a report in flight (fast-check found
//   14, issue 42: the schedule's report spends no token);
// - a lone plug or unplug on a quiet host (no PUT in the 5 s before it, the
//   cloud taking reports) is in a PUT within 2 s;
// - every change is in a PUT within 6 s (a token of the report budget comes
//   back) or the report in flight, while the cloud takes reports.

const PHONES = 40;
const serial = (k: number) => `P${String(k).padStart(3, '0')}`;

type Step =
  | { kind: 'plug' | 'unplug'; phone: number; dt: number }
  | { kind: 'burst'; from: number; count: number; everyMs: number; dt: number }
  | { kind: 'silent'; phone: number; dt: number }
  | { kind: 'cloud'; failing: boolean; dt: number };

const dt = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 6_000 }), fc.integer({ min: 0, max: 40_000 }));
const phoneNo = fc.integer({ min: 0, max: PHONES - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constantFrom('plug' as const, 'unplug' as const), phone: phoneNo, dt }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      from: phoneNo,
      count: fc.integer({ min: 2, max: 3 * PHONES }),
      everyMs: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 2_000 })),
      dt,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('silent' as const), phone: phoneNo, dt }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cloud' as const), failing: fc.boolean(), dt }) },
);

interface Change {
  at: number;
  udid: string;
  present: boolean;
}

async function run(steps: Step[]) {
  const bed = reportBed({ schedule: '* * * * *' });
  const listed = new Set<string>();
  const changes: Change[] = [];
  /** Times the cloud began or stopped failing. */
  const outages: Array<{ from: number; to: number }> = [];
  bed.source.list([]);
  bed.loop.start();
  const change = (udid: string, present: boolean) => {
    if (listed.has(udid) === present) return;
    if (present) listed.add(udid);
    else listed.delete(udid);
    changes.push({ at: bed.time.now, udid, present });
    bed.source.list([...listed].sort());
  };
  for (const s of steps) {
    await bed.advance(s.dt);
    if (s.kind === 'plug' || s.kind === 'unplug') change(serial(s.phone), s.kind === 'plug');
    else if (s.kind === 'burst') {
      // A hub tree switched on or off, or ports flapping: each phone in turn comes if absent, goes if present.
      for (let k = 0; k < s.count; k++) {
        const udid = serial((s.from + k) % PHONES);
        change(udid, !listed.has(udid));
        await bed.advance(s.everyMs);
      }
    } else if (s.kind === 'silent') {
      const udid = serial(s.phone);
      if (bed.source.silent.has(udid)) bed.source.silent.delete(udid);
      else bed.source.silent.add(udid);
    } else if (s.kind === 'cloud' && s.failing !== bed.cloud.failing) {
      bed.cloud.failing = s.failing;
      if (s.failing) outages.push({ from: bed.time.now, to: Infinity });
      else outages.at(-1)!.to = bed.time.now;
    }
  }
  await bed.advance(60_000);
  bed.loop.stop();
  // A phone that never answered its inventory is not in the in-memory source's listing: its content is not checked.
  return {
    puts: bed.cloud.bodies,
    changes,
    outages,
    endAt: bed.time.now,
    silenced: new Set(steps.flatMap((x) => (x.kind === 'silent' ? [serial(x.phone)] : []))),
  };
}

/** Whether a PUT says what the change said of its phone. */
const shows = (body: { devices: Array<{ udid: string; status: string }> }, c: Change) =>
  body.devices.some((d) => d.udid === c.udid && d.status !== 'UNPLUGGED') === c.present;

const steps = fc.array(step, { minLength: 1, maxLength: 40 });
const runs = propertyRuns(100);

describe('the report rate on the whole report path, on random plugs, bursts, failing inventories, ticks and outages', () => {
  it('makes at most 14 PUTs in any 60 s (12 and two schedule ticks); reports a lone change on a quiet host within 2 s, and every change within 6 s (a token back) or the report in flight', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (s) => {
        const { puts, changes, outages, endAt, silenced } = await run(s);
        // 12 reports on the budget and the schedule's own ticks (a minute apart, no jitter here, one held by a report in flight).
        for (const p of puts) expect(puts.filter((q) => q.at >= p.at && q.at < p.at + 60_000).length).toBeLessThanOrEqual(14);
        // A window is clear of the cloud's failures when no outage touched it, nor a report it failed before it: the backoff holds
        // news until the first scheduled report at least half a period after the failure (src/timing/cloud-backoff.ts), so up to
        // 1.5 periods (90 s here). A tick a millisecond short of that half period waits for the next one (found by fast-check,
        // seed 513716687: a failure 29,999 ms before a tick, the change reported 25 s late, within the rule).
        const clear = (from: number, to: number) =>
          !outages.some((o) => o.from <= to && o.to >= from) && !puts.some((p) => !p.delivered && p.at <= to && p.at >= from - 90_000);
        for (const [i, c] of changes.entries()) {
          if (c.at + 6_100 > endAt || !clear(c.at - 5_100, c.at + 6_100)) continue;
          // The first PUT after the change: a later change of the same phone may have undone it by then.
          const undone = (until: number) => changes.slice(i + 1).some((d) => d.udid === c.udid && d.at <= until);
          const next = puts.find((p) => p.at > c.at);
          const quiet = !puts.some((p) => p.at > c.at - 5_100 && p.at <= c.at);
          if (quiet) {
            expect(next && next.at - c.at, `lone change of ${c.udid} at ${c.at}`).toBeLessThanOrEqual(2_000);
          }
          // A token back 6 s after the last start (the report in flight takes no time here), and the 50 ms steps of the bed.
          expect(next && next.at - c.at, `change of ${c.udid} at ${c.at}`).toBeLessThanOrEqual(6_050);
          if (!undone(next!.at) && !silenced.has(c.udid)) expect(shows(next!.body, c), `change of ${c.udid} at ${c.at} in the PUT at ${next!.at}`).toBe(true);
        }
      }),
      runs,
    );
  }, 300_000);
});
