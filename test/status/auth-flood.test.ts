import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { BasicAuth, type AuthAnswer } from '../../src/status/web-config.js';

// Issue 42: 50 clients sending wrong passwords kept bcrypt busy on the
// agent's one thread. Counted, not timed: every bcrypt check goes through a
// counting compare, on a clock the test moves.

const HASH = bcrypt.hashSync('right pass', 4);
const header = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function bed() {
  let now = 0;
  const checks: number[] = [];
  const auth = new BasicAuth(new Map([['prometheus', HASH]]), {
    now: () => now,
    compare: (password, hash) => {
      checks.push(now);
      return bcrypt.compare(password, hash);
    },
  });
  return { auth, checks, advance: (ms: number) => (now += ms), at: () => now };
}

describe('BasicAuth under a flood of wrong passwords (issue 42)', () => {
  it('50 clients with wrong passwords for 10 s: bcrypt checks per second stay bounded; the scraper whose password passed is answered throughout, with no check', async () => {
    const { auth, checks, advance } = bed();
    expect(await auth.check(header('prometheus', 'right pass'))).toEqual({ kind: 'allowed' });
    expect(checks).toHaveLength(1);

    const flood: AuthAnswer[] = [];
    const scraper: AuthAnswer[] = [];
    for (let tick = 0; tick < 100; tick++) {
      advance(100);
      const round = Array.from({ length: 50 }, (_, client) => auth.check(header('prometheus', `guess-${tick}-${client}`)));
      // The scraper asks every 2 s, in the middle of the round.
      const scrape = tick % 20 === 0 ? auth.check(header('prometheus', 'right pass')) : undefined;
      flood.push(...(await Promise.all(round)));
      if (scrape) scraper.push(await scrape);
    }

    expect(scraper).toHaveLength(5);
    expect(scraper.every((a) => a.kind === 'allowed')).toBe(true);
    expect(flood.some((a) => a.kind === 'allowed')).toBe(false);
    // 5000 wrong passwords; without a budget each was a bcrypt check.
    const busy = flood.filter((a) => a.kind === 'busy');
    expect(busy.length).toBeGreaterThan(4900);
    expect(busy.every((a) => a.kind === 'busy' && a.retryAfterSeconds >= 1)).toBe(true);
    // At most the burst (4) plus 2 a second over the 10 s, and in any second of it the burst plus 2.
    expect(checks.length - 1).toBeLessThanOrEqual(4 + 2 * 10);
    for (let start = 0; start <= 10_000; start += 100) {
      expect(checks.filter((t) => t > start && t <= start + 1000).length).toBeLessThanOrEqual(4 + 2);
    }
  });

  it('a right password not checked yet is answered busy with Retry-After while the budget is spent, and allowed when it asks after that', async () => {
    const { auth, advance } = bed();
    // An unknown user costs a check too (against a decoy hash, so that the answer does not tell which users exist).
    expect(await auth.check(header('nobody', 'x'))).toEqual({ kind: 'refused' });
    for (let i = 0; i < 3; i++) expect(await auth.check(header('prometheus', `wrong-${i}`))).toEqual({ kind: 'refused' });
    const busy = await auth.check(header('prometheus', 'right pass'));
    expect(busy).toEqual({ kind: 'busy', retryAfterSeconds: 1 });
    advance(1000);
    expect(await auth.check(header('prometheus', 'right pass'))).toEqual({ kind: 'allowed' });
  });

  it('keeps nothing a copy of its memory could test a guess against: the remembered pair is keyed by this process', async () => {
    const a = bed();
    const b = bed();
    await a.auth.check(header('prometheus', 'right pass'));
    await b.auth.check(header('prometheus', 'right pass'));
    const remembered = (auth: BasicAuth) => (auth as unknown as { passed: Map<string, Buffer> }).passed.get('prometheus')!;
    expect(remembered(a.auth).equals(remembered(b.auth))).toBe(false);
  });
});
