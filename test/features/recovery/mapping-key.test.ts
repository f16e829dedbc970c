import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// Issue 42, recovery's half: the port of a power cycle is looked up as
// charge control's is (actions/device-mapping.ts). The first phone is
// mapped by its adb serial; the second gives that serial as its udid and
// wedges. Before, a kick that did not help was followed by a power cycle of
// the first phone's port.

const FIRST = '127.0.0.1:40001';
const SECOND = '127.0.0.1:40002';

describe('recovery through a mapping key that names two phones', () => {
  it("does not power-cycle the first phone's port for a wedged phone giving its serial as udid: kicked, the cycle refused in one line", async () => {
    const bed = recoveryBed({
      env: {
        DEVICE_AGENT_NETWORK_DEVICES: `${FIRST},${SECOND}`,
        DEVICE_AGENT_HUB_PORTS: `${FIRST}=1-1.4:3`,
        DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
        DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
        DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
        DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
      },
    });
    bed.list(FIRST, 'device');
    bed.list(SECOND, 'device');
    bed.answered(FIRST, 'FIRST001');
    bed.answered(SECOND, FIRST);
    bed.recovery.start();
    await bed.advance(5_000);
    // Its own transport is its own: the kick goes to it by its serial.
    bed.failed(SECOND, 2);
    await bed.advance(3_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${SECOND}`]);
    bed.failed(SECOND, 2);
    const wedged = bed.time.now;
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(wedged).filter((d) => d.startsWith('cycle'))).toEqual([]);
    const refused = bed.lines(/^recovery does not power cycle /);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.msg).toBe(
      `recovery does not power cycle ${SECOND}: the mapping key ${FIRST} is the adb serial of ${FIRST} and the udid ${SECOND} gives: it names two phones; ` +
        'no host action is taken for it until its identity holds',
    );
    expect(bed.lines(/^the key .* names two phones/)).toHaveLength(1);
  });
});
