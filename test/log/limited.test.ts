import { describe, expect, it } from 'vitest';
import { carryClock, LimitedLog, limited } from '../../src/log/limited.js';
import { systemClock } from '../../src/util/clock.js';
import { VirtualTime } from '../support/virtual-time.js';
import { captureLogger } from './capture.js';

describe('LimitedLog', () => {
  it('writes the first lines of a cause, then one summary with the count, a few subjects and the last line', () => {
    const { logger, lines } = captureLogger();
    let now = 0;
    const log = new LimitedLog(logger, { clock: { ...systemClock, monotonic: () => now }, limits: { burst: 3, windowMs: 60_000, maxSubjects: 2 } });
    for (let i = 0; i < 50; i++) log.warn('refused', { udid: `U${i}` }, `the cloud did not store device U${i}`, `U${i}`);
    log.info('other', {}, 'another cause is not held back');
    expect(lines().map((l) => l.msg)).toEqual([
      'the cloud did not store device U0',
      'the cloud did not store device U1',
      'the cloud did not store device U2',
      'another cause is not held back',
    ]);
    now = 60_000;
    log.warn('refused', { udid: 'U50' }, 'the cloud did not store device U50', 'U50');
    const [summary, next] = lines().slice(4);
    expect(summary).toMatchObject({ level: 'warn', cause: 'refused', suppressed: 47, subjects: ['U3', 'U4'] });
    expect(String(summary?.msg)).toBe(
      '47 more log lines of this kind in the last 60 s were held back (at most 3 in 60 s per kind); among them U3, U4 and 45 more; ' +
        'the last: the cloud did not store device U49',
    );
    expect(next?.msg).toBe('the cloud did not store device U50');
  });

  it('writes a summary when it is due even if its cause never comes again', async () => {
    const { logger, lines } = captureLogger();
    const log = new LimitedLog(logger, { limits: { burst: 1, windowMs: 50, maxSubjects: 5 } });
    log.warn('tracker', {}, 'adb device tracking ended');
    log.warn('tracker', {}, 'adb device tracking ended');
    log.warn('tracker', {}, 'adb device tracking ended');
    expect(lines()).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 150));
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatchObject({ cause: 'tracker', suppressed: 2 });
  });

  it('flush writes what is owed before a one-shot command ends', () => {
    const { logger, lines } = captureLogger();
    const log = new LimitedLog(logger, { clock: { ...systemClock, monotonic: () => 0 }, limits: { burst: 1, windowMs: 60_000, maxSubjects: 5 } });
    log.error('x', {}, 'a');
    log.error('x', {}, 'b');
    log.flush();
    expect(lines().map((l) => [l.level, l.suppressed])).toEqual([
      ['error', undefined],
      ['error', 1],
    ]);
  });

  it('one budget per logger, shared by every module that logs through it', () => {
    const a = captureLogger().logger;
    const b = captureLogger().logger;
    expect(limited(a)).toBe(limited(a));
    expect(limited(a)).not.toBe(limited(b));
  });
});

// Issue 41: limited(logger), which every module calls without a clock, runs
// on the clock its logger carries (the agent's, handed in src/agent/build.ts).
describe('limited(logger) on the clock its logger carries', () => {
  /** Twelve lines of one cause: the first ten (the default burst) written, two held back. */
  const twelve = (logger: Parameters<typeof limited>[0]): void => {
    for (let i = 0; i < 12; i++) limited(logger).warn('adb-tracking-ended', {}, 'adb device tracking ended');
  };

  it('writes a held-back summary when it is due on that time line, not before, and counts the window on it', () => {
    const { logger, lines } = captureLogger();
    const time = new VirtualTime();
    carryClock(logger, time.clock());
    twelve(logger);
    expect(lines()).toHaveLength(10);
    time.advance(59_999);
    expect(lines()).toHaveLength(10);
    time.advance(1);
    expect(lines()).toHaveLength(11);
    expect(lines()[10]).toMatchObject({ cause: 'adb-tracking-ended', suppressed: 2 });
    expect(String(lines()[10]!.msg)).toMatch(/^2 more log lines of this kind in the last 60 s were held back/);
  });

  it('a limiter made before its logger was handed the clock says what it held back, then runs on the clock', () => {
    const { logger, lines } = captureLogger();
    twelve(logger);
    const time = new VirtualTime();
    carryClock(logger, time.clock());
    expect(lines()).toHaveLength(11);
    expect(lines()[10]).toMatchObject({ suppressed: 2 });
    twelve(logger);
    expect(lines()).toHaveLength(21);
    time.advance(60_000);
    expect(lines()).toHaveLength(22);
    expect(lines()[21]).toMatchObject({ suppressed: 2 });
  });

  it("handed the clock its limiter already runs on (the system's: the daemon, a one-shot command), it holds what it held back", () => {
    const { logger, lines } = captureLogger();
    twelve(logger);
    carryClock(logger, systemClock);
    expect(lines()).toHaveLength(10);
    limited(logger).flush();
    expect(lines()[10]).toMatchObject({ suppressed: 2 });
  });

  it('a child of the logger carries its clock', () => {
    const { logger, lines } = captureLogger();
    const time = new VirtualTime();
    carryClock(logger, time.clock());
    twelve(logger.child({ part: 'watcher' }));
    time.advance(60_000);
    expect(lines().filter((l) => l.suppressed === 2)).toHaveLength(1);
  });
});
