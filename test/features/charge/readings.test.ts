import { describe, expect, it } from 'vitest';
import { ChargePauses } from '../../../src/features/charge/pauses.js';
import { chargeBed } from './charge-bed.js';

// A phone that stays on adb while its port is off (one on Wi-Fi adb, or data
// through another cable) keeps the reading that started its pause on its
// record. That reading says nothing of the battery after the pause began or
// ended: taken for a new one, it would end the wait for the phone at once and
// start the next pause on the same old figure.

const MAX_S = 60;

function bed() {
  return chargeBed(
    { DEVICE_AGENT_CHARGE_WAYS: 'U1=uhubctl', DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: String(MAX_S) },
    { U1: { hub: '1-1', port: 3 } },
    { tickMs: 1_000 },
  );
}

async function tick(b: ReturnType<typeof bed>, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 1_000) {
    b.time.advance(Math.min(1_000, left));
    await b.control.settled();
  }
}

describe('charge control: which readings count', () => {
  it('does not take the reading from before a pause for one after it, so no second pause starts on it', async () => {
    const b = bed();
    b.answered('S1', 'U1', 85);
    b.control.start();
    await b.control.settled();
    expect(b.switched).toEqual(['uhubctl 1-1:3 off']);

    // The longest pause ends it; the phone never answered since, its record still says 85 %.
    await tick(b, MAX_S * 1000 + 3_000);
    expect(b.switched).toEqual(['uhubctl 1-1:3 off', 'uhubctl 1-1:3 on']);
    const ended = new ChargePauses(b.registry, 'android').of('S1')?.pause?.ended;
    expect(ended?.why).toBe('max_time');
    expect(ended?.switchedOn, 'still waiting for a reading from after the pause').toBe(true);

    // A new reading, taken after the port is on, counts: the phone is back, and at 86 % a new pause may start.
    b.answered('S1', 'U1', 86);
    b.control.devicesChanged();
    await b.control.settled();
    await tick(b, 2_000);
    expect(b.switched).toEqual(['uhubctl 1-1:3 off', 'uhubctl 1-1:3 on', 'uhubctl 1-1:3 off']);
    await b.control.stop();
  });

  it('ends a pause at the low mark on a reading taken during it, not on the one that started it', async () => {
    const b = bed();
    b.answered('S1', 'U1', 85);
    b.control.start();
    await b.control.settled();
    await tick(b, 5_000);
    expect(new ChargePauses(b.registry, 'android').of('S1')?.pause?.ended, 'the old reading is not a low one').toBeUndefined();
    b.answered('S1', 'U1', 38);
    b.control.devicesChanged();
    await b.control.settled();
    expect(new ChargePauses(b.registry, 'android').of('S1')?.pause?.ended?.why).toBe('low_mark');
    expect(b.switched).toEqual(['uhubctl 1-1:3 off', 'uhubctl 1-1:3 on']);
    await b.control.stop();
  });
});
