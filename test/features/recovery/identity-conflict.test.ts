import { ACTIONS_REFUSED } from '../../../src/actions/trust.js';
import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// Issue 35, finding 1, on virtual time: a wedged phone giving another
// phone's udid gets neither a kick nor, a kick cooldown later, a power cycle
// of "its" port. The e2e test (test/e2e/identity-actions.test.ts) reads the
// refused kick from the real process; the half hour after it, in which a
// cycle would have come had the kick been done, is waited out here.

const VICTIM = '127.0.0.1:40021';
const IMPOSTOR = '127.0.0.1:40022';

describe('a wedged phone that gives another phone’s udid, that udid on a mapped hub port', () => {
  it('is not kicked and its port not power-cycled over half an hour: one line for the kick, counted', async () => {
    const bed = recoveryBed({
      env: {
        DEVICE_AGENT_NETWORK_DEVICES: `${VICTIM},${IMPOSTOR}`,
        DEVICE_AGENT_HUB_PORTS: 'VICTIM01=1-1.4:3',
        DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
        DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
        DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
        DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
      },
    });
    bed.list(VICTIM, 'device');
    bed.list(IMPOSTOR, 'device');
    bed.answered(VICTIM, 'VICTIM01');
    bed.answered(IMPOSTOR, 'VICTIM01');
    bed.recovery.start();
    await bed.advance(5_000);

    const wedged = bed.time.now;
    for (let i = 0; i < 60; i++) {
      bed.failed(IMPOSTOR, 2);
      await bed.advance(30_000);
    }
    expect(bed.doneSince(wedged)).toEqual([]);
    const refused = bed.lines(/^recovery does not kick /);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ serial: IMPOSTOR });
    expect(String(refused[0]!.msg)).toMatch(/VICTIM01.*; no host action is taken for it until its identity holds$/);
    expect(bed.stats.counter(ACTIONS_REFUSED).get('kick')).toBeGreaterThanOrEqual(1);
    expect(bed.actions('kick', 'ok') + bed.actions('power_cycle', 'ok')).toBe(0);
  });
});
