import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../../src/cloud/types.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import { androidPhone as phone } from '../support/devices.js';
import { propertyRuns } from '../support/property-runs.js';

// The UNPLUGGED ledger over random lives of three phones, with what the presence property (presence.property.test.ts)
// leaves out: adb (re)connecting again and again, reports composed while its list is not complete, sources that do not
// answer, and reports that do not reach the cloud. At every report, against what the cloud holds (the reports it took):
// a phone it holds present and absence can call gone is in the body UNPLUGGED (never lost, however often adb
// reconnected or reports failed meanwhile), and one is sent UNPLUGGED only then (never while only a complete list could
// tell it is gone: it may be back on its port, off adb; chaos seed 18).

const PHONES = ['A', 'B', 'C'];

type Step = { op: 'connect' } | { op: 'report'; present: boolean[]; complete: boolean; nothingGone: boolean; delivered: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(fc.record({ op: fc.constant('connect' as const) }), {
  weight: 4,
  arbitrary: fc.record({
    op: fc.constant('report' as const),
    present: fc.array(fc.boolean(), { minLength: PHONES.length, maxLength: PHONES.length }),
    complete: fc.boolean(),
    nothingGone: fc.boolean(),
    delivered: fc.boolean(),
  }),
});

describe('UnpluggedLedger on random lives', () => {
  it('sends a phone the cloud holds present UNPLUGGED exactly while absence can call it gone, across reconnects and failed reports', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const ledger = new UnpluggedLedger();
        /** What the cloud holds present: the phones the reports it took last carried as present. */
        const held = new Set<string>();
        /** Phones present in a report since adb last (re)connected. */
        const seen = new Set<string>();
        for (const s of steps) {
          if (s.op === 'connect') {
            ledger.sourceConnected();
            seen.clear();
            continue;
          }
          const present: DeviceInfo[] = PHONES.filter((_, i) => s.present[i]).map((u) => phone(u));
          for (const d of present) seen.add(d.udid);
          // As the reporter has it: a report is complete only when every source answered (src/report/reporter.ts).
          const complete = s.complete && !s.nothingGone;
          const body = ledger.compose(present, complete, s.nothingGone);
          const udids = body.map((d) => d.udid);
          expect(new Set(udids).size, 'each phone once').toBe(udids.length);
          const gone = new Set(body.filter((d) => d.status === STATUS_UNPLUGGED).map((d) => d.udid));
          for (const udid of PHONES) {
            const absent = !present.some((d) => d.udid === udid);
            const canCallGone = absent && !s.nothingGone && (complete || seen.has(udid));
            expect(gone.has(udid), `${udid}: held ${held.has(udid)}, absent ${absent}, can call it gone ${canCallGone}`).toBe(held.has(udid) && canCallGone);
          }
          if (!s.delivered) continue;
          ledger.delivered(body, complete);
          if (complete) held.clear();
          for (const d of body) {
            if (d.status === STATUS_UNPLUGGED) held.delete(d.udid);
            else held.add(d.udid);
          }
        }
      }),
      propertyRuns(300),
    );
  });
});
