// The tunnel daemons' watch on a fetch that flaps: every change is said, but
// through the per-cause limit, so a daemon going up and down at every poll
// is a bounded number of lines, never two a poll.
import { describe, expect, it } from 'vitest';
import { DaemonWatch, type HttpAnswer } from '../../../src/features/ios-developer/watch.js';
import { systemClock } from '../../../src/util/clock.js';
import { captureLogger } from '../../log/capture.js';

describe('a flapping tunnel daemon', () => {
  it('200 polls flapping between up and down: at most 11 lines of it (the per-cause limit), and each poll read right', async () => {
    const log = captureLogger('info');
    let up = true;
    const fetch = async (): Promise<HttpAnswer> => (up ? { status: 200, body: '[]\n' } : { error: 'connection refused' });
    const watch = new DaemonWatch({
      daemons: [{ id: 'go', kind: 'go-ios', url: 'http://127.0.0.1:60105' }],
      pollMs: 60_000,
      clock: systemClock,
      logger: log.logger,
      phones: () => [],
      fetch,
    });
    for (let i = 0; i < 200; i++) {
      up = i % 2 === 0;
      await watch.poll();
      expect(watch.daemons()[0]!.state).toBe(up ? 'up' : 'down');
    }
    const lines = log.lines().filter((l) => l.level !== 'debug');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.length).toBeLessThanOrEqual(11);
  });
});
