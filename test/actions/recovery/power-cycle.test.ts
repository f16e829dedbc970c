import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// Power-cycle recovery of a wedged phone, on virtual time (moved from
// test/e2e/power-cycle.test.ts; the cycle through the real adb server and
// the stand-in uhubctl stays in test/e2e/offline-power-cycle.test.ts, and a
// wedged phone's kick then cycle through them in test/e2e/cycle-blocked.test.ts).

const SERIAL = '127.0.0.1:40003';

describe('a phone a kick does not bring back', () => {
  it('has its hub port power-cycled once the kick cooldown is over, on a fresh "not booked", and comes back', async () => {
    const bed = recoveryBed({
      env: {
        DEVICE_AGENT_NETWORK_DEVICES: SERIAL,
        DEVICE_AGENT_HUB_PORTS: 'CYCLE001=1-1.4:3',
        DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
        DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
        DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
        DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
      },
    });
    bed.list(SERIAL, 'device');
    bed.answered(SERIAL, 'CYCLE001');
    bed.recovery.start();
    await bed.advance(5_000);
    // adbd wedged for good: every connection's shells hang, the kicked one's too. A shell misses its deadline every 2 s, until the cycle.
    for (let t = 0; !bed.done.some((d) => d.what.startsWith('cycle ')); t += 2_000) {
      expect(t).toBeLessThan(60_000);
      bed.failed(SERIAL);
      await bed.advance(2_000);
    }
    const done = bed.done.filter((d) => !d.what.startsWith('connect '));
    expect(done.map((d) => d.what)).toEqual([`reconnect ${SERIAL}`, 'cycle 1-1.4:3']);
    const [kick, cycle] = done;
    expect(cycle!.at - kick!.at).toBeGreaterThanOrEqual(10_000);
    // The booking gate was asked about the cycle, within its cache time before it.
    expect(bed.asked.some((a) => a.id === 'CYCLE001' && a.at <= cycle!.at && a.at > cycle!.at - 2_000)).toBe(true);
    expect(bed.lines(/hub 1-1\.4 port 3 power-cycled/)[0]?.output).toMatch(/Sent power off request[\s\S]*Sent power on request/);

    // The cycle brought it back.
    bed.answered(SERIAL, 'CYCLE001');
    await bed.advance(60_000);
    expect(bed.actions('power_cycle', 'ok')).toBe(1);
    expect(bed.actions('kick', 'ok')).toBe(1);
    expect(bed.notes(SERIAL)?.attention).toBeUndefined();
  });
});
