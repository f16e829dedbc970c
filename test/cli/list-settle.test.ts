import { describe, expect, it } from 'vitest';
import { LIST_SETTLE_MS, settledListing } from '../../src/cli/list.js';
import { captureLogger } from '../log/capture.js';

// `list` waits for devices adb is still connecting or authorizing (a fresh
// adb server reconnecting phones), LIST_SETTLE_MS at most, then lists them in
// that state and says so on stderr. On virtual time.

function virtualTime() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

describe('list: devices adb is still connecting or authorizing', () => {
  it('still settling past the bound: listed in that state, with one warning giving how many and how long it waited', async () => {
    const { logger, lines } = captureLogger();
    const time = virtualTime();
    let reads = 0;
    const complete = await settledListing(
      async () => (reads++, true),
      () => ['10.0.0.7:5555', '10.0.0.8:5555'],
      logger,
      time,
    );
    expect(complete).toBe(true);
    expect(time.now()).toBeGreaterThanOrEqual(LIST_SETTLE_MS);
    expect(time.now()).toBeLessThan(LIST_SETTLE_MS + 1_000);
    expect(reads).toBeGreaterThan(2);
    const warned = lines().filter((l) => l.level === 'warn');
    expect(warned.map((l) => [l.msg, l.serials])).toEqual([
      [
        `2 devices are still connecting or authorizing in adb after ${LIST_SETTLE_MS / 1000} s; listed in that state (run list again for their inventories)`,
        ['10.0.0.7:5555', '10.0.0.8:5555'],
      ],
    ]);
  });

  it('settled within the bound: read again until then, no warning', async () => {
    const { logger, lines } = captureLogger();
    const time = virtualTime();
    const complete = await settledListing(
      async () => true,
      () => (time.now() < 2_000 ? ['R58M1234'] : []),
      logger,
      time,
    );
    expect(complete).toBe(true);
    expect(time.now()).toBe(2_000);
    expect(lines().filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('an incomplete listing (adb not answering) is not waited on, and no line says it was', async () => {
    const { logger, lines } = captureLogger();
    const time = virtualTime();
    expect(
      await settledListing(
        async () => false,
        () => ['R58M1234'],
        logger,
        time,
      ),
    ).toBe(false);
    expect(time.now()).toBe(0);
    // It did not wait: no line claims it did (adb's own error line says what is wrong).
    expect(lines().filter((l) => l.level === 'warn')).toEqual([]);
  });
});
