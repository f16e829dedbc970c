import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// A power cycle that cannot work, over hours of virtual time (issue 34,
// finding 4): the hub tool finds no hub at the location. The e2e test
// (test/e2e/cycle-blocked.test.ts) shows the real stand-in's words becoming
// the one "cannot work" line; this one shows that the cycle is never tried
// again while the hub's listing stays the same, however long the phone
// stays wedged, and is tried again once the listing changes.

const SERIAL = '127.0.0.1:40002';
/** What runTool makes of the stand-in's (and the real uhubctl's) answer for a hub it does not find. */
const NO_HUB = (args: string) => new Error(`uhubctl ${args}: exit status 1: No compatible devices detected at location 1-1.4!`);

function wedgedOnMissingHub() {
  let listing = 'No compatible devices detected at location 1-1.4!';
  const bed = recoveryBed({
    env: {
      DEVICE_AGENT_NETWORK_DEVICES: SERIAL,
      DEVICE_AGENT_HUB_PORTS: 'NOHUB001=1-1.4:3',
      DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
      DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
    },
    cycle: () => Promise.reject(NO_HUB('-l 1-1.4 -p 3 -a cycle')),
    status: () => Promise.reject(new Error(`uhubctl -l 1-1.4: exit status 1: ${listing}`)),
  });
  bed.list(SERIAL, 'device');
  bed.answered(SERIAL, 'NOHUB001');
  bed.recovery.start();
  /** adbd wedged for good: a shell misses its deadline at every inventory the planner asks for (it backs a failing phone off, 10 s, 20 s, ... up to minutes; 30 s here throughout, more often than that). */
  const wedgedFor = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 30_000) {
      bed.failed(SERIAL);
      await bed.advance(30_000);
    }
  };
  return { bed, wedgedFor, plugHub: () => (listing = 'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]') };
}

const cycles = (done: ReadonlyArray<{ what: string }>): number => done.filter((d) => d.what === 'cycle 1-1.4:3').length;

describe('a power cycle on a hub the tool does not find', () => {
  it('is tried once, said once, and not retried over hours of a wedged phone; the phone says a person is needed', async () => {
    const { bed, wedgedFor } = wedgedOnMissingHub();
    await wedgedFor(3 * 60 * 60_000);
    // Kicked (once an hour: the kicks' limit), and the port tried once.
    expect(bed.done.filter((d) => d.what === `reconnect ${SERIAL}`).length).toBeGreaterThanOrEqual(1);
    expect(cycles(bed.done)).toBe(1);
    expect(bed.actions('power_cycle', 'failed')).toBe(1);
    expect(bed.actions('power_cycle', 'ok')).toBe(0);
    const said = bed.lines(/cannot work|needs a person/);
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(/No compatible devices detected at location 1-1\.4.*not tried again until the settings change/);
    expect(bed.notes(SERIAL)?.attention).toMatch(/^needs a person: power-cycling hub 1-1\.4 port 3 cannot work \(the hub tool finds no hub at that location/);
    // The hub's listing is asked now and then, to see the hardware change.
    expect(bed.done.filter((d) => d.what === 'status 1-1.4').length).toBeGreaterThan(1);
  });

  it('is tried again once the hub tool lists the hub', async () => {
    const { bed, wedgedFor, plugHub } = wedgedOnMissingHub();
    await wedgedFor(10 * 60_000);
    expect(cycles(bed.done)).toBe(1);
    plugHub();
    await wedgedFor(5 * 60_000);
    expect(bed.lines(/answers differently now; power-cycling 1-1\.4:3 may be tried again/)).toHaveLength(1);
    expect(cycles(bed.done)).toBe(2);
  });
});
