import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// A network device whose address refuses, on virtual time (moved from
// test/e2e/self-healing.test.ts, which keeps the warning against a real
// closed port): one warning, and attempts spaced by a growing backoff (2 s,
// 4 s, 8 s, ... at most 5 min), not a fixed retry.

describe('a network device whose address refuses', () => {
  it('gets one warning and attempts spaced by a growing backoff, up to 5 minutes apart', async () => {
    const address = '127.0.0.1:40009';
    const bed = recoveryBed({
      env: { DEVICE_AGENT_NETWORK_DEVICES: address },
      connect: (a) => Promise.reject(new Error(`failed to connect to '${a}': Connection refused`)),
    });
    bed.list('USB0001', 'device');
    bed.recovery.start();
    await bed.advance(60 * 60_000);
    const at = bed.done.filter((d) => d.what === `connect ${address}`).map((d) => d.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // Each gap at least the one before it, from about 2 s up to the 5 min cap.
    expect(gaps[0]).toBeLessThanOrEqual(4_000);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5 * 60_000 + 2_000);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(4 * 60_000);
    // In the first 10 s: at most 4 attempts (a fixed 2 s retry would make 5 or more).
    expect(at.filter((t) => t <= at[0]! + 10_000).length).toBeLessThanOrEqual(4);
    const warnings = bed.log.lines().filter((l) => l.address === address && l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toMatch(/could not be connected .*keeps trying/);
    expect(bed.actions('connect', 'failed')).toBe(at.length);
  });
});
