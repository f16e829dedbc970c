import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import type { DeviceRow } from '../../src/status/device-rows.js';
import { READINESS_FACTS } from '../../src/devices/readiness-facts.js';
import { propertyRuns } from '../support/property-runs.js';
import { reportBed } from '../agent/bed.js';

// One phone, one timeline (issue 71): after every fact a lab can throw at the agent and the report it wakes, the body
// the cloud took, the rows `list --json` and the page print, and /metrics say the same of every phone: its state, its
// readiness verdict, its quarantine, the state in-service time counts it in and the layer blamed. And a readiness
// verdict changes only on a reading that changes it.

const PHONES = ['P0', 'P1', 'P2', 'P3'];

type Step =
  | { kind: 'plug' | 'unplug' | 'wedge' | 'unwedge' | 'notReady' | 'ready' | 'fastTier'; phone: number }
  | { kind: 'adbDown' | 'adbUp' | 'cloudDown' | 'cloudUp' | 'wait' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('plug', 'unplug', 'wedge', 'unwedge', 'notReady', 'ready', 'fastTier' as const), phone: fc.nat(PHONES.length - 1) }),
  fc.record({ kind: fc.constantFrom('adbDown', 'adbUp', 'cloudDown', 'cloudUp', 'wait' as const) }),
);

/** The samples of a metric in /metrics' text, by their labels. */
function samples(text: string, name: string): Array<Record<string, string>> {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => Object.fromEntries([...l.slice(name.length + 1, l.lastIndexOf('}')).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!])));
}

function gauge(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(name) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the views of the phones, after every fact and the report it wakes', () => {
  it('agree on state, readiness, quarantine, in-service state and blame; a readiness verdict changes only on a reading', async () => {
    let judged = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 12 }), async (steps) => {
        const bed = reportBed({
          schedule: '* * * * *',
          set: { 'readiness.checks': ['developerMode'], 'quarantine.failures': 2 },
          daemon: { booking: { ask: async () => ({ booked: false }) } },
        });
        const { source, cloud } = bed;
        const plugged = new Set(PHONES);
        const relist = () => source.listStates(new Map([...plugged].map((p) => [p, 'device'])));
        for (const p of PHONES) source.facts.set(p, { developerMode: 'true' });
        await bed.startDaemon();
        bed.loop.start();
        relist();
        await bed.advance(5_000, 250);
        /** Each phone's readiness cell, and whether a reading could have changed it since. */
        const cells = new Map<string, string | undefined>();
        for (const s of steps) {
          const p = 'phone' in s ? PHONES[s.phone]! : '';
          switch (s.kind) {
            case 'plug':
              plugged.add(p);
              relist();
              break;
            case 'unplug':
              plugged.delete(p);
              relist();
              break;
            case 'wedge':
              source.silent.add(p);
              break;
            case 'unwedge':
              source.silent.delete(p);
              break;
            case 'notReady':
              source.facts.set(p, { developerMode: 'false' });
              break;
            case 'ready':
              source.facts.set(p, { developerMode: 'true' });
              break;
            case 'fastTier':
              // Its next inventories read no readiness facts (the fast tier's), as a source's reading that leaves them out.
              source.facts.delete(p);
              bed.registry.facet(READINESS_FACTS).delete(`android/${p}`);
              break;
            case 'adbDown':
              source.alive = false;
              source.fail = new Error('the adb server does not answer');
              break;
            case 'adbUp':
              source.alive = true;
              source.fail = undefined;
              break;
            case 'cloudDown':
              cloud.failing = true;
              break;
            case 'cloudUp':
              cloud.failing = false;
              break;
            case 'wait':
              break;
          }
          // The phones the report's inventories can read.
          const read = new Set(PHONES.filter((q) => !source.silent.has(q) && plugged.has(q) && source.alive && source.facts.has(q)));
          // The report the fact wakes (or a full one), carried out, and nothing else happening meanwhile.
          // The next report the agent sends (the one the fact wakes, or a full one asked for): a cloud that does not
          // answer is asked again later, on the planner's back-off.
          const sent = cloud.bodies.length;
          const askedFrom = source.asked.length;
          void bed.loop.report('views');
          for (let t = 0; t < 600_000 && cloud.bodies.length === sent; t += 500) await bed.advance(500, 500);
          expect(cloud.bodies.length).toBeGreaterThan(sent);
          // And what that report's consequences change (a quarantine its failed inventory completes, 250 ms on), told in the
          // report it wakes after the change debounce and a token of the report budget (one each 5 s): the views are
          // compared once no verdict is left that a report has not folded, and none is being sent; a cloud that does not
          // answer is asked again on its back-off, and the last report tried (one that folded every verdict) is compared.
          // (While a source fails, reports go on every few seconds without any fact: waiting for them to stop would wait
          // for the source.)
          for (let waited = 0; waited < 2_000 || bed.registry.timeline.unfolded || (bed.loop.reporting && !cloud.failing); waited += 500) {
            // Within two schedule periods: while the cloud is down, the next attempt after its back-off is the next
            // scheduled report (src/timing/planner.ts), so a verdict the scheduled report's own inventory made waits for the
            // one after it (seed -1224145602: 65 s was too short). The wake's own bound is test/agent/verdict-wake.test.ts's.
            expect(waited, 'a verdict changed after a report and no report told the cloud within two schedule periods').toBeLessThan(125_000);
            await bed.advance(500, 500);
          }
          const body = cloud.bodies.at(-1)!.body.devices.filter((d) => d.status !== 'UNPLUGGED');
          // The phones whose inventory answered in this step with facts (`read` may not be: one that failed waits out its retry).
          const inventoried = new Set(source.asked.slice(askedFrom).flat());
          const answered = (udid: string) => inventoried.has(`android/${udid}`) && !source.silent.has(udid) && source.facts.has(udid);
          const rows = bed.views.rows();
          const metrics = await bed.views.metrics();
          const byUdid = new Map<string, DeviceRow>(rows.map((r) => [r.udid, r]));
          const told = new Map<string, DeviceInfo>(body.map((d) => [d.udid, d]));
          // The same phones in the body and the rows (both of this instant).
          expect([...byUdid.keys()].sort()).toEqual([...told.keys()].sort());
          const readinessCell = (r: DeviceRow) => r.features?.readiness;
          let failing = 0;
          let held = 0;
          for (const [udid, d] of told) {
            const row = byUdid.get(udid)!;
            // State: the source's word, everywhere.
            expect(row.state).toBe(d.state);
            expect(samples(metrics, 'device_agent_device_state').find((l) => l.udid === udid)?.state).toBe(d.state);
            // Readiness: the cell, the body's Appium flag (the host's is off) and the gauge.
            const cell = readinessCell(row);
            const q = row.quarantined as { until: number } | undefined;
            if (cell?.startsWith('not ready')) failing++;
            expect(d.support?.appiumDisabled === true).toBe(cell?.startsWith('not ready') === true || q !== undefined);
            // Quarantine: the row, the body's words and status.
            if (q) held++;
            expect(/quarantined since/.test(d.message ?? '')).toBe(q !== undefined);
            if (q) expect(d.status).toBe('UNAVAILABLE');
            // In service: the row, its series; in service only where the cloud was told AVAILABLE and Appium runs.
            const now = row.inService as { state: string; layer?: string } | undefined;
            const series = samples(metrics, 'device_agent_device_service_state').find((l) => l.udid === udid);
            expect(series && { state: series.state, layer: series.layer }).toEqual(now && { state: now.state, layer: now.layer ?? '' });
            if (now?.state === 'in_service') expect([d.status, d.support?.appiumDisabled]).toEqual(['AVAILABLE', false]);
            if (d.status === 'UNAVAILABLE') expect(now?.state).not.toBe('in_service');
            // A verdict changes only on a reading: a phone not read since the last step keeps its cell; one whose inventory
            // answered has the verdict of what it read (the model's, not another view's).
            if (cells.has(udid) && !read.has(udid)) expect(cell).toBe(cells.get(udid));
            if (answered(udid)) {
              expect(cell?.startsWith('not ready') === true, udid).toBe(source.facts.get(udid)?.developerMode === 'false');
              judged++;
            }
            cells.set(udid, cell);
          }
          expect(gauge(metrics, 'device_agent_readiness_failing_devices', { check: 'developerMode' })).toBe(failing);
          expect(gauge(metrics, 'device_agent_quarantined_phones')).toBeGreaterThanOrEqual(held);
        }
        await bed.stopDaemon();
      }),
      propertyRuns(12),
    );
    // Not vacuous: phones were judged against what their inventory read.
    expect(judged).toBeGreaterThan(0);
  }, 300_000);
});
