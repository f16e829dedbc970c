import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load.js';
import { QUARANTINES } from '../../../src/features/quarantine/quarantine.js';
import { lifeBed } from '../availability/life.js';

// What quarantines cost the cloud: a host whose phones fail together sends
// no more PUT /devices than its report budget lets any host send, and its
// booking questions stay within the host's budget, shared by every action.

type Life = ReturnType<typeof lifeBed>;

/**
 * The same lab, 30 phones of which 20 fail three times together within 10 minutes, each on its own readiness (its
 * Developer Mode turned off): inventories failing together would be the host's (src/devices/starved.ts), never a phone's.
 */
async function lab(failures: number): Promise<Life> {
  const life = lifeBed({ phones: 30, seed: 31, set: { 'quarantine.failures': failures } });
  await life.boot();
  const failing = life.phones.slice(0, 20);
  for (let i = 0; i < 3; i++) {
    for (const p of failing) life.start('readiness', p);
    await life.bed.advance(90_000, 1_000);
    for (const p of failing) life.end(p);
    await life.bed.advance(90_000, 1_000);
  }
  await life.bed.advance(40 * 60_000, 1_000);
  return life;
}

/** The most PUTs in any window of `ms` (virtual). */
const most = (times: readonly number[], ms: number) => Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + ms).length));

describe("quarantine's cost to the cloud", () => {
  const labs: Life[] = [];
  afterEach(() => labs.splice(0).forEach((l) => l.cleanup()));

  it('20 phones quarantined at once: within the host report budget, one report more than the same failures without quarantine, the booking questions within their budget', async () => {
    const on = await lab(3);
    const off = await lab(0);
    labs.push(on, off);
    expect(on.bed.stats.counter(QUARANTINES).get('readiness')).toBe(20);
    expect(off.bed.stats.counter(QUARANTINES).get('readiness')).toBe(0);
    const puts = (l: Life) => l.bed.cloud.attempts;
    console.log(
      `load: PUTs with quarantine ${puts(on).length}, without ${puts(off).length}; booking questions ${on.asked.length} and ${off.asked.length}; most in a minute ${most(puts(on), 60_000)} PUTs, ${most(on.asked, 60_000)} questions`,
    );
    // The report budget: 12 reports from tokens and the schedule's own in any 60 s (docs/design/fleet.md).
    expect(most(puts(on), 60_000)).toBeLessThanOrEqual(13);
    // The quarantines of one look go out in one report, which the failures' own reports do not already carry.
    expect(puts(on).length).toBeLessThanOrEqual(puts(off).length + 1);
    const budget = loadSettings({ env: {} }).recovery.bookingRequestsPerMinute;
    expect(most(on.asked, 60_000)).toBeLessThanOrEqual(budget);
  }, 120_000);
});
