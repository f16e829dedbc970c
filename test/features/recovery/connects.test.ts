import { describe, expect, it } from 'vitest';
import { afterConnect, ConnectBackoffs, FRESH } from '../../../src/features/recovery/connects.js';

const timing = { connectBaseMs: 2_000, connectMaxMs: 300_000 };

describe('the connect backoff of the configured addresses', () => {
  it('after a connect: a failure doubles the wait up to the max, a success waits the base interval, a held transport counts as a failure', () => {
    let e = FRESH;
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      e = afterConnect(e, { ok: false }, 1_000, timing);
      waits.push(e.nextAt - 1_000);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000]);
    const held = afterConnect(e, { ok: true, held: true }, 5_000, timing);
    expect(held).toEqual({ failures: 11, nextAt: 5_000 + 300_000, held: true, heldAt: 5_000 });
    expect(afterConnect(held, { ok: true }, 9_000, timing)).toEqual({ failures: 0, nextAt: 11_000, held: false, heldAt: 5_000 });
  });

  it('keeps what the plan moved of a configured address and hands back the rest; an unknown address is not kept', () => {
    const b = new ConnectBackoffs(['10.0.0.5:5555'], timing);
    const connect = { kind: 'connect', address: '10.0.0.5:5555' };
    const rest = b.take([
      connect,
      { kind: 'connect-backoff', address: '10.0.0.5:5555', entry: { failures: 2, nextAt: 7 } },
      { kind: 'connect-backoff', address: '10.9.9.9:5555', entry: { failures: 1, nextAt: 1 } },
    ]);
    expect(rest).toEqual([connect]);
    expect([...b.view]).toEqual([['10.0.0.5:5555', { failures: 2, nextAt: 7 }]]);
    b.noteOutcome('10.9.9.9:5555', false, 0);
    expect(b.size).toBe(1);
  });
});
