import { afterEach, describe, expect, it } from 'vitest';
import { QUARANTINES } from '../../../src/features/quarantine/quarantine.js';
import { blameMatch, lifeBed, share } from './life.js';

// The in-service time the agent computes, against the truth of each phone's
// life as the test made it (life.ts): faults of every layer at random, the
// cloud's own answers, on virtual time.

const HOURS = Number(process.env.LIFE_HOURS ?? 8);
const SEED = Number(process.env.LIFE_SEED ?? process.env.FC_SEED ?? 63);

describe('in-service time on the report bed, against the truth of each phone', () => {
  let life: ReturnType<typeof lifeBed> | undefined;
  afterEach(() => life?.cleanup());

  it('hours of faults of every layer (LIFE_HOURS, 8 by default): within 1 percentage point per phone and for the host, the blamed layer right for at least 95 % of the time out', async () => {
    life = lifeBed({ phones: 8, seed: SEED });
    const from = await life.boot();
    // One phone flaps (a wedge or its readiness failing every few minutes): quarantined again and again.
    await life.run(HOURS * 3_600_000, undefined, true, ['LIFE07']);
    const quarantines = life.bed.stats.counter(QUARANTINES).get('phone') + life.bed.stats.counter(QUARANTINES).get('readiness');
    await life.bed.advance(120_000, 1_000);
    const to = life.bed.time.now;
    const truth = life.truth(from, to);
    const agent = await life.counted(life.bed.time.epochMs + to);
    const rows: string[] = [];
    let matched = 0;
    let out = 0;
    let worst = 0;
    for (const p of life.phones) {
      const t = share([truth.get(p)!]);
      const a = share([agent.get(p) ?? new Map()]);
      const m = blameMatch(agent.get(p) ?? new Map(), truth.get(p)!);
      matched += m.matched;
      out += m.out;
      const diff = Math.abs(a.inService / a.all - t.inService / t.all);
      worst = Math.max(worst, diff);
      rows.push(
        `${p}: truth ${((100 * t.inService) / t.all).toFixed(2)}% agent ${((100 * a.inService) / a.all).toFixed(2)}% (${(a.all / 3600).toFixed(2)} h counted of ${(t.all / 3600).toFixed(2)}), blame ${m.out ? ((100 * m.matched) / m.out).toFixed(1) : '-'}%`,
      );
    }
    const th = share(truth.values());
    const ah = share(agent.values());
    const hostDiff = Math.abs(ah.inService / ah.all - th.inService / th.all);
    console.log(
      `life (seed ${SEED}, ${HOURS} h, 8 phones, ${quarantines} quarantines): host truth ${((100 * th.inService) / th.all).toFixed(2)}% agent ${((100 * ah.inService) / ah.all).toFixed(2)}%, ` +
        `worst phone off by ${(100 * worst).toFixed(2)} points, blame right for ${((100 * matched) / out).toFixed(2)}% of ${(out / 3600).toFixed(2)} h out\n  ${rows.join('\n  ')}`,
    );
    expect(worst).toBeLessThanOrEqual(0.01);
    expect(hostDiff).toBeLessThanOrEqual(0.01);
    expect(matched / out).toBeGreaterThanOrEqual(0.95);
    expect(quarantines).toBeGreaterThan(0);
  }, 300_000);
});
