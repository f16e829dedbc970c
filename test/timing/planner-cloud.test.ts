import { describe, expect, it } from 'vitest';
import { PlannerBed } from './planner-bed.js';

// Named scenarios of the planner while the cloud fails (issue 23, items 3, 9
// and 10); the bounds over random sequences are in planner.property.test.ts,
// and for a fleet in fleet.test.ts.

const MIN = 60_000;
const transient = (retryAfterMs?: number) => ({ delivered: false as const, failure: 'transient' as const, retryAfterMs });
const delivered = { delivered: true as const, sent: [], failedDevices: [] };

/** A planner a minute into a run, its first report delivered, with random draws fixed at `random`. */
function running(random = 0.5): PlannerBed {
  const p = new PlannerBed({ periodMs: MIN, jitterMs: 10_000, debounceMs: 500, random: () => random });
  p.start(0);
  p.take(0);
  p.finished(delivered, 100);
  return p;
}

describe('report planner while the cloud fails', () => {
  it("a device change late in the period that gets 429 with Retry-After: 30 goes again no sooner than 30 s, and the schedule's tick inside the wait is dropped", () => {
    const p = running(0.5);
    p.deviceChanged('A', 'device', 50_000);
    expect(p.take(51_500)!.triggers).toEqual(['devices-changed']);
    p.finished(transient(30_000), 51_600);
    // Before: resent 5 s later, as a plain failure, and the schedule's report 10 s later regardless.
    // The tick inside the wait is dropped; the resend goes after 30 s plus a random part of up to 15 s (0.5 here).
    p.scheduleTick(60_000);
    const next = p.nextAt(60_000)!;
    expect(next).toBe(51_600 + 30_000 + 7_500);
    expect(p.take(next)!.triggers).toEqual(['resend']);
    p.finished(delivered, next + 100);
    // The schedule goes on at its own time.
    expect(p.nextAt(next + 100)).toBeGreaterThan(MIN + 60_000);
  });

  it('a scheduled report that failed is not resent: the next scheduled report carries it', () => {
    const p = running();
    p.scheduleTick(MIN);
    p.take(MIN);
    p.finished(transient(), MIN + 300);
    expect(p.nextAt(MIN + 300)).toBeGreaterThan(2 * MIN);
    p.scheduleTick(2 * MIN);
    expect(p.take(2 * MIN)!.triggers).toEqual(['schedule']);
  });

  it('news that did not get through goes again after 10-20 s, then 20-40 s, taking the schedule along instead of going twice', () => {
    const p = running(0.5);
    p.deviceChanged('A', 'device', 70_000);
    p.take(71_500);
    p.finished(transient(), 71_600);
    // First resend: 20 s less a random half (0.5 · 10 s).
    expect(p.nextAt(71_600)).toBe(71_600 + 15_000);
    p.take(86_600);
    p.finished(transient(), 86_700);
    // A tick meanwhile waits for the second resend (40 s less 0.5 · 20 s).
    p.scheduleTick(100_000);
    expect(p.nextAt(100_000)).toBe(86_700 + 30_000);
    expect(p.take(116_700)!.triggers.sort()).toEqual(['resend', 'schedule']);
    // At the period, the schedule itself is the resend: ticks within half a period of the failure are dropped.
    p.finished(transient(), 117_000);
    p.scheduleTick(140_000);
    expect(p.nextAt(140_000)).toBeGreaterThan(200_000);
    p.scheduleTick(200_000);
    expect(p.take(200_000)!.triggers).toEqual(['schedule']);
  });

  it('a device change while the cloud fails goes with the next attempt of the backoff, not at once', () => {
    const p = running(0);
    p.scheduleTick(MIN);
    p.take(MIN);
    p.finished(transient(), MIN + 300);
    p.deviceChanged('A', 'device', MIN + 1_000);
    // Not at MIN + 1.5 s: at the first resend (20 s, random 0).
    expect(p.nextAt(MIN + 1_000)).toBe(MIN + 300 + 20_000);
    p.take(MIN + 20_300);
    p.finished(delivered, MIN + 20_400);
    // Delivered: changes are news within 2 s again.
    p.deviceChanged('A', 'offline', MIN + 30_000);
    expect(p.nextAt(MIN + 30_000)).toBe(MIN + 30_500);
  });

  it('spreads the start report over startSpreadMs', () => {
    for (const random of [0, 0.25, 0.999]) {
      const p = new PlannerBed({ periodMs: MIN, jitterMs: 10_000, debounceMs: 500, startSpreadMs: 10_000, random: () => random });
      p.start(1_000);
      expect(p.nextAt(1_000)).toBe(1_000 + random * 10_000);
      expect(p.take(1_000 + random * 10_000)!.triggers).toEqual(['start']);
    }
  });

  it('adb tracking that keeps coming back asks for one full report a period, not one per reconnect', () => {
    const p = running();
    const starts: number[] = [];
    // The tracker dies right after connecting, every 2 s for 3 minutes.
    for (let t = 10_000; t < 190_000; t += 2_000) {
      p.sourceResumed(t);
      const at = p.nextAt(t);
      if (at !== undefined && at <= t + 2_000 && p.take(at)) {
        starts.push(at);
        p.finished(delivered, at + 100);
      }
    }
    // Before: a report on every reconnect (90).
    expect(starts.filter((t) => t < 190_000)).toEqual([10_000, 70_000, 130_000]);
  });
});
