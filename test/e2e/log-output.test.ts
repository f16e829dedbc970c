import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// The daemon's log output (stdout: journald, docker logs, a pipe) failing
// under it. Its job is reporting; a log nobody reads must not end it.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe("the daemon's log reader goes away", () => {
  it('it keeps running and reporting (before: it exited 0 at the next line, which Restart=on-failure does not restart)', async () => {
    await bed.plug('LOGOUT01');
    const a = bed.run();
    await cloud.waitForPut((r) => devicesOf(r).length === 1, 20_000);
    await a.waitForLog((l) => l.msg === 'report delivered');
    // Our end of its stdout pipe closes: its next write gets EPIPE.
    a.child.stdout!.destroy();
    await sleep(200);
    for (let i = 0; i < 3; i++) {
      const t0 = Date.now();
      a.child.kill('SIGHUP');
      await cloud.waitForPut((r) => r.receivedAt >= t0 && devicesOf(r).length === 1, 20_000);
      await sleep(300);
    }
    expect(a.child.exitCode).toBeNull();
    expect(a.child.signalCode).toBeNull();
    // And it still stops cleanly.
    const end = await a.stop('SIGTERM');
    expect(end.code).toBe(0);
  }, 60_000);
});
