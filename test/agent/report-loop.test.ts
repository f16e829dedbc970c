import { describe, expect, it } from 'vitest';
import { FIRST_LISTING_WAIT_MS } from '../../src/agent/report-loop.js';
import { reportBed } from './bed.js';

// The report loop in process, on virtual time: what the start report says,
// when it goes, and when /healthz turns healthy (issue 33, finding 3).

describe('the start report', () => {
  it('waits for a slow first listing and carries its devices, never devices: [] while the source lists some', async () => {
    const bed = reportBed();
    bed.loop.start();
    await bed.advance(2_000);
    // The adb server has not answered its first listing yet: nothing goes out.
    expect(bed.cloud.bodies).toEqual([]);
    expect(bed.views.health().ok).toBe(false);
    // It comes after the start, so as changes too (as adb's watcher says a late listing).
    bed.source.list(['P1', 'P2', 'P3'], 'device', true);
    await bed.advance(500);
    expect(bed.sent()).toEqual([['P1', 'P2', 'P3']]);
    expect(bed.cloud.bodies[0]!.at).toBeLessThanOrEqual(2_200);
    expect(bed.views.health()).toEqual({ ok: true, reasons: [], brief: [] });
  });

  it('goes at its bound when a source never lists, and /healthz stays unhealthy until a report reflecting the listing is delivered', async () => {
    const bed = reportBed({ firstListingWaitMs: 5_000 });
    bed.loop.start();
    await bed.advance(4_900);
    expect(bed.cloud.bodies).toEqual([]);
    await bed.advance(200);
    expect(bed.cloud.bodies.map((b) => b.at)).toEqual([5_000]);
    const health = bed.views.health();
    expect(health.ok).toBe(false);
    expect(health.reasons).toEqual([
      expect.stringMatching(/^no report made after every source had listed its devices has been delivered since the start 5 s ago/),
    ]);
    bed.source.list(['P1'], 'device', true);
    // Within the gap after the start report (5 s): one gap for every report.
    await bed.advance(5_000);
    expect(bed.sent()).toEqual([[], ['P1']]);
    expect(bed.views.health().ok).toBe(true);
  });

  it('the bound is stated: 10 s by default', () => {
    expect(FIRST_LISTING_WAIT_MS).toBe(10_000);
  });

  it('a fresh adb server that lists nothing yet: waits for the devices the last run reported, until adb has settled', async () => {
    const bed = reportBed({ reportedBefore: ['P1', 'P2', 'P3'] });
    bed.loop.start();
    bed.source.emit('connected', 10_000);
    bed.source.list([]);
    await bed.advance(1_700);
    expect(bed.cloud.bodies).toEqual([]);
    bed.source.list(['P1', 'P2', 'P3'], 'device', true);
    await bed.advance(500);
    expect(bed.sent()).toEqual([['P1', 'P2', 'P3']]);
    expect(bed.cloud.bodies[0]!.body.devices.map((d) => d.status)).toEqual(['AVAILABLE', 'AVAILABLE', 'AVAILABLE']);
  });

  it('a phone of the last run that is really gone: the start report goes once adb has settled, and says it UNPLUGGED', async () => {
    const bed = reportBed({ reportedBefore: ['P1', 'GONE'] });
    bed.loop.start();
    bed.source.emit('connected', 10_000);
    bed.source.list(['P1']);
    await bed.advance(9_900);
    expect(bed.cloud.bodies).toEqual([]);
    await bed.advance(300);
    expect(bed.cloud.bodies.map((b) => b.body.devices.map((d) => `${d.udid}:${d.status}`))).toEqual([['P1:AVAILABLE', 'GONE:UNPLUGGED']]);
  });
});

describe('the plan', () => {
  it('plans iPhones as it plans Android phones: a silent one is held and asked again on its backoff, not at every report', async () => {
    const bed = reportBed({
      platforms: [
        ['android', 'device'],
        ['ios', 'attached'],
      ],
    });
    const [android, ios] = bed.sources as [typeof bed.source, typeof bed.source];
    android.list(['A1']);
    ios.list(['I1', 'I2']);
    ios.silent.add('I2');
    bed.loop.start();
    await bed.advance(1_000);
    expect(ios.asked).toEqual([['ios/I1', 'ios/I2']]);
    // A change of the Android phone: a report that asks only what changed, and leaves the silent iPhone to its backoff.
    android.list(['A1', 'A2']);
    // Reported once the gap after the start report (5 s) has passed.
    await bed.advance(4_500);
    expect(ios.asked[1]).toEqual([]);
    // The inventory retry (10 s after the failure) asks the silent iPhone alone.
    await bed.advance(9_000);
    expect(ios.asked.at(-1)).toEqual(['ios/I2']);
  });
});

describe('no event re-enters the loop while a report is built (issue 41)', () => {
  it("the registry's outcomes noted during a report are heard once, after it ends, and a failure still plans its retry", async () => {
    const bed = reportBed();
    bed.source.list(['P1', 'P2', 'P3']);
    bed.source.silent.add('P3');
    const heard: boolean[] = [];
    const outcomeNoted = bed.loop.outcomeNoted.bind(bed.loop);
    bed.loop.outcomeNoted = () => {
      heard.push(bed.loop.reporting);
      outcomeNoted();
    };
    let outcomes = 0;
    bed.registry.readings.on('outcome', () => outcomes++);
    bed.loop.start();
    await bed.advance(1_000);
    // Three inventories noted their outcomes while the start report was built: the loop heard them once, after it.
    expect(outcomes).toBe(3);
    // The silent phone has no inventory yet: it is not reported.
    expect(bed.sent()).toEqual([['P1', 'P2']]);
    expect(heard).toEqual([false]);
    // The silent phone's retry (10 s after the failure) is planned from what was heard, and again heard only after.
    await bed.advance(10_000);
    expect(bed.source.asked.at(-1)).toEqual(['android/P3']);
    expect(heard.every((reporting) => !reporting)).toBe(true);
  });
});
