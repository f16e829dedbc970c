import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../../src/cloud/types.js';
import { PresenceLedger, type PresenceReason } from '../../src/devices/presence.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import { androidPhone as phone } from '../support/devices.js';

// The rule of docs/design/architecture.md ("Presence is never silently
// lost"), over random lives of a few phones: plugged, answering, unplugged,
// paused by charge control (a bound on the clock, or resumed), a source that
// fails and answers again, time passing. The writers owe the ledger as the
// agent's do (a failed source: src/report/execute.ts; a pause: a bound on
// the clock), the report asks it once, and the UNPLUGGED ledger composes.
// At every report each device once reported is either in the body with an
// inventory and a reason, or sent UNPLUGGED exactly once, or waiting while a
// source that did not answer says nothing is gone; never carried past its bound.

const PHONES = ['P0', 'P1', 'P2'];
const SOURCE: PresenceReason = { kind: 'source-failed', scope: 'android' };
const pausedOf = (udid: string): PresenceReason => ({ kind: 'charge-paused', scope: `android/${udid}` });

type Step =
  | { op: 'plug' | 'unplug' | 'resume'; phone: number }
  | { op: 'pause'; phone: number; ms: number }
  | { op: 'fail' | 'answer' | 'report' }
  | { op: 'tick'; ms: number };

const phoneIx = fc.integer({ min: 0, max: PHONES.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom('plug' as const, 'unplug' as const, 'resume' as const), phone: phoneIx }),
  fc.record({ op: fc.constant('pause' as const), phone: phoneIx, ms: fc.integer({ min: 1, max: 60_000 }) }),
  fc.record({ op: fc.constantFrom('fail' as const, 'answer' as const) }),
  { weight: 3, arbitrary: fc.record({ op: fc.constant('report' as const) }) },
  fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
);

interface Phone {
  plugged: boolean;
  /** The last inventory it answered, which a writer owes when it cannot answer. */
  last?: DeviceInfo;
  /** Monotonic ms its pause ends by; its port is off, so it is off its source. */
  pausedUntil?: number;
}

describe('presence ledger with the UNPLUGGED ledger: presence is never silently lost (issue 41)', () => {
  it('property: at every report a device once reported is carried with an inventory and a reason, or UNPLUGGED exactly once, never past its bound', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const presence = new PresenceLedger();
        const unplugged = new UnpluggedLedger();
        const phones = new Map<string, Phone>(PHONES.map((u) => [u, { plugged: false }]));
        /** Per udid: reported present since its last UNPLUGGED record, and whether that record went. */
        const told = new Map<string, { reported: boolean }>();
        let now = 0;
        let failing = false;
        const listed = (p: Phone) => p.plugged && p.pausedUntil === undefined;
        for (const s of [...steps, { op: 'answer' as const }, { op: 'tick' as const, ms: 120_000 }, { op: 'report' as const }]) {
          const udid = 'phone' in s ? PHONES[s.phone]! : '';
          const p = phones.get(udid);
          switch (s.op) {
            case 'plug':
              p!.plugged = true;
              break;
            case 'unplug':
              p!.plugged = false;
              break;
            case 'pause':
              // Charge control pauses a phone it has read, and owes it until the pause's bound.
              if (!listed(p!) || !p!.last) break;
              p!.pausedUntil = now + s.ms;
              presence.owe(pausedOf(udid), [{ ...p!.last, status: 'UNAVAILABLE', message: 'charge paused' }], { until: p!.pausedUntil });
              break;
            case 'resume':
              if (p!.pausedUntil === undefined) break;
              p!.pausedUntil = undefined;
              presence.end(pausedOf(udid));
              break;
            case 'fail':
              failing = true;
              break;
            case 'answer':
              failing = false;
              break;
            case 'tick':
              now += s.ms;
              break;
            case 'report': {
              // The sources: an answering one lists its phones; a failed one owes their last inventories (execute.ts).
              const present: DeviceInfo[] = [];
              const owed: DeviceInfo[] = [];
              for (const [u, q] of phones) {
                if (!listed(q)) continue;
                if (failing) {
                  if (q.last) owed.push({ ...q.last, message: 'source failed' });
                } else present.push((q.last = phone(u)));
              }
              if (failing) presence.owe(SOURCE, owed, { while: 'the source fails' });
              else presence.end(SOURCE);
              const { carried } = presence.report(present, now);
              const why = new Map(carried.map((c) => [c.info.udid, c.reason]));
              // As the reporter has it: a report is complete only when every source answered (src/report/reporter.ts).
              const complete = !failing;
              const body = unplugged.compose([...present, ...carried.map((c) => c.info)], complete, failing);
              unplugged.delivered(body, complete);
              for (const u of PHONES) {
                const sent = body.filter((d) => d.udid === u);
                expect(sent.length).toBeLessThanOrEqual(1);
                const d = sent[0];
                const q = phones.get(u)!;
                const was = told.get(u)?.reported ?? false;
                if (d && d.status !== STATUS_UNPLUGGED) {
                  // Reported: read now, or carried for a reason within its bound.
                  const reason = why.get(u);
                  if (!present.some((x) => x.udid === u)) {
                    expect(reason).toBeDefined();
                    if (reason!.kind === 'charge-paused') expect(now).toBeLessThan(q.pausedUntil!);
                  }
                  told.set(u, { reported: true });
                } else if (d) {
                  // UNPLUGGED: once, and only for a device reported since its last one.
                  expect(was).toBe(true);
                  told.set(u, { reported: false });
                } else if (was) {
                  // Absent and owed: only while a source that did not answer says nothing is gone.
                  expect(failing).toBe(true);
                  expect(listed(q) && q.last !== undefined).toBe(false);
                }
              }
              break;
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
