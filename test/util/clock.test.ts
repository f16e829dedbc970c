import { describe, expect, it } from 'vitest';
import { every } from '../../src/util/clock.js';
import { VirtualTime } from '../support/virtual-time.js';

describe('every', () => {
  it('calls once per period of the timers it is given, until cancelled', () => {
    const time = new VirtualTime(0);
    const at: number[] = [];
    const timer = every(time.clock(), 100, () => at.push(time.now));
    time.advance(99);
    expect(at).toEqual([]);
    time.advance(301);
    expect(at).toEqual([100, 200, 300, 400]);
    timer.cancel();
    time.advance(1_000);
    expect(at).toHaveLength(4);
    expect(time.pending).toBe(0);
  });

  it('cancelled from its own call, it is not called again', () => {
    const time = new VirtualTime(0);
    let calls = 0;
    const timer = every(time.clock(), 10, () => {
      calls++;
      timer.cancel();
    });
    time.advance(100);
    expect(calls).toBe(1);
  });
});
