import { describe, expect, it } from 'vitest';
import type { ReportPlanner } from '../../src/timing/planner.js';
import { PlannerBed } from './planner-bed.js';

// Named scenarios of the report planner; its guarantees over random event
// sequences are in planner.property.test.ts.

const HOUR = 3_600_000;
const planner = () => new PlannerBed({ periodMs: 30 * 60_000, jitterMs: 0, debounceMs: 500 });

/** Runs the planner as the agent does, reports taking `ms`, answering with `answer`. */
function drive(
  p: ReportPlanner,
  from: number,
  until: number,
  answer: (n: number, sent: string[]) => Parameters<ReportPlanner['finished']>[0],
  present: () => string[],
) {
  const starts: number[] = [];
  let t = from;
  for (;;) {
    const at = p.nextAt(t);
    if (at === undefined || at > until) return starts;
    t = at;
    const plan = p.take(t);
    if (!plan) continue;
    starts.push(t);
    t += 50;
    p.finished(answer(starts.length, present()), t);
  }
}

describe('report planner', () => {
  it('answers an operator at once, but a flood of requests spends the budget (3 reports at once, then one per 6 s); a full report answers a waiting request', () => {
    const p = planner();
    const ok = { delivered: true as const, sent: [], failedDevices: [] };
    p.requested();
    expect(p.nextAt(0)).toBe(0);
    expect(p.take(0)?.triggers).toEqual(['requested']);
    p.finished(ok, 100);
    // 200 requests in the next 4 s: the budget's two other tokens at once, then one report when a token is back.
    const starts: number[] = [];
    let busyUntil = 100;
    for (let t = 100; t < 14_000; t += 20) {
      if (t < 4_100) p.requested();
      if (t < busyUntil) continue;
      const plan = p.nextAt(t) !== undefined && p.nextAt(t)! <= t ? p.take(t) : undefined;
      if (plan) {
        starts.push(t);
        busyUntil = t + 100;
        p.finished(ok, busyUntil);
      }
    }
    // The third token was spent at 300, with 0.2 s of the first back (it refills while a report is in flight): the next is whole 5.8 s later.
    expect(starts).toEqual([100, 200, 6_100]);
    // A request waits for its token, and so does a device change (one budget for every trigger, issue 36): one report carries both.
    p.requested();
    p.deviceChanged('A', 'device', 6_300);
    expect(p.nextAt(6_300)).toBe(12_100);
    expect(p.take(12_100)?.triggers.sort()).toEqual(['devices-changed', 'requested']);
    p.finished(ok, 12_200);
    // The schedule's tick keeps its time (its period bounds it), and a request waiting meanwhile rides along, without a token.
    p.requested();
    p.scheduleTick(12_250);
    expect(p.nextAt(12_250)).toBe(12_250);
    expect(p.take(12_250)?.triggers.sort()).toEqual(['requested', 'schedule']);
    p.finished(ok, 12_300);
    // The schedule's report spent none: a change waits only for the token the last spend left coming.
    p.deviceChanged('A', undefined, 12_400);
    expect(p.nextAt(12_400)).toBe(18_100);
  });

  it('a device the cloud refused and that is then unplugged makes no report storm', () => {
    const p = planner();
    p.start(0);
    p.deviceChanged('A', 'device', 0);
    p.deviceChanged('B', 'device', 0);
    let present = ['A', 'B'];
    // The cloud refuses B in every answer that carries it.
    const answer = (_n: number, sent: string[]) => ({
      delivered: true as const,
      sent,
      failedDevices: sent.includes('B') ? [{ udid: 'B', message: 'missing capability' }] : [],
    });
    drive(p, 0, 10_000, answer, () => present);
    p.deviceChanged('B', undefined, 10_000);
    present = ['A'];
    const starts = drive(p, 10_000, 85_000, answer, () => present);
    // The UNPLUGGED report, then nothing until the schedule (30 min away); before: ~50 a second.
    expect(starts).toEqual([10_500]);
    expect(p.failed.current()).toEqual([]);
  });

  it('a report rejected with a 4xx waits for the schedule; a 503 is resent on one backoff, 10-20 s, 20-40 s ... under 5 min', () => {
    const rejected = planner();
    rejected.start(0);
    expect(
      drive(
        rejected,
        0,
        HOUR / 2 - 1,
        () => ({ delivered: false, failure: 'rejected' }),
        () => [],
      ),
    ).toEqual([0]);
    for (const random of [0, 0.5, 0.999]) {
      const unavailable = new PlannerBed({ periodMs: 30 * 60_000, jitterMs: 0, debounceMs: 500, random: () => random });
      unavailable.start(0);
      const starts = drive(
        unavailable,
        0,
        20 * 60_000,
        () => ({ delivered: false, failure: 'transient' }),
        () => [],
      );
      const gaps = starts.slice(1).map((t, i) => t - starts[i]! - 50);
      // The bound doubles from 20 s to the 5 min cap; each wait is between half of it and all of it.
      const bounds = [20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000];
      gaps.forEach((gap, i) => {
        const bound = bounds[Math.min(i, bounds.length - 1)]!;
        expect(gap).toBeGreaterThanOrEqual(bound / 2);
        expect(gap).toBeLessThanOrEqual(bound);
      });
      expect(gaps.length).toBeGreaterThanOrEqual(5);
    }
  });

  it('holds a device whose probes keep failing: asked after 10 s, 20 s, 40 s ... not on every report', () => {
    const p = planner();
    p.start(0);
    p.deviceChanged('W', 'device', 0);
    p.deviceChanged('OK', 'device', 0);
    const first = p.take(0)!;
    expect([...first.refresh].sort()).toEqual(['OK', 'W']);
    p.probeOutcome('W', false, 100);
    p.finished({ delivered: true, sent: ['OK', 'W'], failedDevices: [] }, 100);
    // A schedule tick at 5 s probes OK afresh but holds W.
    p.scheduleTick(5_000);
    const tick = p.take(5_000)!;
    expect([...tick.refresh]).toEqual(['OK']);
    expect([...tick.hold]).toEqual(['W']);
    p.finished({ delivered: true, sent: ['OK', 'W'], failedDevices: [] }, 5_100);
    expect(p.nextAt(5_100)).toBe(10_100);
    const retry = p.take(10_100)!;
    expect(retry.triggers).toEqual(['inventory-retry']);
    expect([...retry.refresh]).toEqual(['W']);
    p.probeOutcome('W', false, 10_200);
    p.finished({ delivered: true, sent: ['OK', 'W'], failedDevices: [] }, 10_200);
    expect(p.nextAt(10_200)).toBe(30_200);
    // Replugged: asked with the next report, at once after the debounce (the budget has tokens).
    p.deviceChanged('W', 'offline', 11_000);
    p.deviceChanged('W', 'device', 11_100);
    expect(p.nextAt(11_100)).toBe(11_600);
    expect([...p.take(11_600)!.refresh]).toEqual(['W']);
  });

  it("takes adb's list as complete only 10 s after it connects, then reports once so the devices not back go out as UNPLUGGED", () => {
    const p = planner();
    p.start(0);
    p.take(0);
    p.finished({ delivered: true, sent: [], failedDevices: [] }, 10);
    p.sourceConnected(1_000, 10_000);
    expect(p.listSettled(5_000)).toBe(false);
    expect(p.nextAt(1_000)).toBe(11_000);
    expect(p.take(11_000)!.triggers).toEqual(['source-settled']);
    expect(p.listSettled(11_000)).toBe(true);
    p.finished({ delivered: true, sent: [], failedDevices: [] }, 11_010);
    // Once only.
    expect(p.nextAt(11_010)).toBeGreaterThan(HOUR / 2);
    // And not at all when every device came back before it settled.
    p.sourceConnected(20_000, 10_000);
    p.settleNotNeeded();
    expect(p.nextAt(20_000)).toBeGreaterThan(HOUR / 2);
  });
});
