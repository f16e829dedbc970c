import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import type * as NodeIdModule from '../../src/config/node-id.js';
import { nodeIdWhenKept } from '../../src/cli/node-id-wait.js';
import { createLogger } from '../../src/log/logger.js';

// The wait for room to keep a node id (issue 42), on virtual time. The e2e
// test (test/faults/state-dir-full.test.ts) sends a SIGHUP on reading the
// wait's line. A process with no SIGHUP listener meets the signal's default
// action, which ends it: removing the last listener gives the signal back to
// the kernel's default. The wait used to take its listener off and put a new
// one on around each try, and said its line in between; once in CI, under
// load, the agent then died of the SIGHUP the test sent on reading
// "SIGHUP: still no room ..." and "logged nothing within 15 s".

const disk = vi.hoisted(() => ({ full: true, tries: 0 }));
vi.mock('../../src/config/node-id.js', async (importOriginal) => {
  const real = await importOriginal<typeof NodeIdModule>();
  return {
    ...real,
    resolveNodeId: () => {
      disk.tries++;
      if (disk.full) throw new real.NoSpaceForNodeId('/var/lib/device-agent', 'ENOSPC');
      return 'kept-id';
    },
  };
});

const settings = loadSettings({ env: {} });
const RETRY_MS = 30_000;

/** A logger that notes, at each line, how many SIGHUP listeners the process has. */
function listeningLogger() {
  const lines: Array<{ msg: string; sighupListeners: number }> = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: {
      write: (line: string) => lines.push({ msg: String((JSON.parse(line) as { msg: unknown }).msg), sighupListeners: process.listenerCount('SIGHUP') }),
    },
  });
  return { logger, lines };
}

let before: number;
beforeEach(() => {
  vi.useFakeTimers();
  disk.full = true;
  disk.tries = 0;
  before = process.listenerCount('SIGHUP');
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waiting for room to keep a node id', () => {
  it('each line is said with a SIGHUP listener in place (a SIGHUP sent on reading it would otherwise end the process); one listener, however long the wait; none left behind', async () => {
    const { logger, lines } = listeningLogger();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const waiting = nodeIdWhenKept(settings, {}, logger, stopped, RETRY_MS);
    const most = { listeners: 0 };
    const note = () => (most.listeners = Math.max(most.listeners, process.listenerCount('SIGHUP') - before));

    await vi.advanceTimersByTimeAsync(0);
    note();
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^stateDir \(DEVICE_AGENT_STATE_DIR\): no node id is kept/)]);
    // A day of tries: said once, one listener throughout.
    for (let i = 0; i < 2880; i++) {
      await vi.advanceTimersByTimeAsync(RETRY_MS);
      note();
    }
    expect(disk.tries).toBe(2881);
    expect(lines).toHaveLength(1);

    process.emit('SIGHUP');
    await vi.advanceTimersByTimeAsync(0);
    note();
    expect(lines.map((l) => l.msg).at(-1)).toBe('SIGHUP: still no room to keep a node id in /var/lib/device-agent (ENOSPC); nothing is reported yet');
    expect(disk.tries).toBe(2882);

    disk.full = false;
    process.emit('SIGHUP');
    await expect(waiting).resolves.toBe('kept-id');
    expect(lines.map((l) => l.msg).at(-1)).toBe('the node id kept-id is kept in the state directory now; reporting starts');

    expect(lines.map((l) => l.sighupListeners - before)).toEqual([1, 1, 1]);
    expect(most.listeners).toBe(1);
    expect(process.listenerCount('SIGHUP')).toBe(before);
    stop();
  });

  it('a SIGHUP answered at once, not at the next 30 s; a stop while waiting ends it, its listener gone', async () => {
    const { logger, lines } = listeningLogger();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const waiting = nodeIdWhenKept(settings, {}, logger, stopped, RETRY_MS);
    await vi.advanceTimersByTimeAsync(1_000);
    process.emit('SIGHUP');
    await vi.advanceTimersByTimeAsync(0);
    expect(disk.tries).toBe(2);
    expect(lines).toHaveLength(2);
    stop();
    await expect(waiting).resolves.toBeUndefined();
    expect(disk.tries).toBe(2);
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });
});
