import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { steppedClockEnv } from '../support/faketime.js';
import { waitFor } from '../support/wait.js';

// The wall clock steps while the daemon runs (an NTP step, suspend and
// resume, someone's `date -s`), played with Debian's libfaketime: only
// CLOCK_REALTIME moves, the monotonic clock goes on, as on a real host.
// node-cron (the agent's scheduler before src/timing/cron.ts) stalled for the
// length of a backward step and logged one warning per skipped run after a
// forward one.

const bed = new DaemonBed('pixel-8-pro');

beforeAll(() => bed.start());
afterAll(() => bed.stop());

describe('wall clock steps', () => {
  it('neither stall nor flood the schedule, and are logged once each', async () => {
    const stepFile = join(mkdtempSync(join(tmpdir(), 'da-clock-')), 'offset');
    writeFileSync(stepFile, '+0\n');
    await bed.plug('CLOCK001');
    const a = bed.run({
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      // Scheduled reports without news are logged at debug (a quiet log, issue 34).
      DEVICE_AGENT_LOG_LEVEL: 'debug',
      ...steppedClockEnv(stepFile),
    });
    // Counted by place in the log, not by time: after a step back, the lines before it carry later times than the ones after.
    const scheduledAfter = (line: Record<string, unknown>) => {
      const logs = a.logs();
      return logs.slice(logs.indexOf(line) + 1).filter((l) => l.msg === 'report delivered' && String(l.reason).includes('schedule')).length;
    };
    await a.waitForLog((l) => l.msg === 'report delivered' && String(l.reason).includes('schedule'), 15_000);

    // Back an hour, then forward again to the real time.
    for (const [offset, step] of [
      ['-3600', -3600],
      ['+0', 3600],
    ] as const) {
      writeFileSync(stepFile, `${offset}\n`);
      const line = await a.waitForLog((l) => String(l.msg).startsWith('the wall clock stepped') && l.stepSeconds === step, 5_000).catch(() => undefined);
      expect(line, `a line for the ${step} s step`).toBeDefined();
      // (was: 6 s on the 2 s schedule)
      await waitFor(() => scheduledAfter(line!) >= 2, 15_000, `2 scheduled reports after the ${step} s step`);
    }
    expect(a.logs().filter((l) => String(l.msg).startsWith('the wall clock stepped'))).toHaveLength(2);
    // No warning per skipped run.
    expect(a.logs().filter((l) => l.level === 'warn').length).toBeLessThanOrEqual(3);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});
