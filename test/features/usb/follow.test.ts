import { appendFileSync, mkdtempSync, openSync, read, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KernelLogFollower, type FollowIo } from '../../../src/features/usb/follow.js';
import type { Timers } from '../../../src/util/clock.js';
import { waitFor } from '../../support/wait.js';
import { captureLogger } from '../../log/capture.js';

// The follower on a real file, its polls driven by hand (each due timer run
// when the test says), and on reads that fail the way /dev/kmsg's do. A
// /dev/kmsg read returns one whole record; a recorded file can be read while
// it is still being written, so a record may arrive in two reads.

// The log's own failures, given to the follower as its I/O (FollowIo)
// rather than by mocking node:fs, which the unit tier's shared module cache
// (isolate: false, vitest.config.ts) would leave unmocked for a follower
// another test file loaded first.
const fsMock = { failNext: [] as string[], failOpen: [] as string[] };
const failingIo: FollowIo = {
  openSync: (...args: Parameters<typeof openSync>) => {
    const code = fsMock.failOpen.shift();
    if (code) throw Object.assign(new Error(`${code}: simulated`), { code });
    return openSync(...args);
  },
  read: ((fd: number, buffer: Buffer, offset: number, length: number, position: number | null, cb: (err: NodeJS.ErrnoException | null, n: number) => void) => {
    const code = fsMock.failNext.shift();
    if (code) return process.nextTick(() => cb(Object.assign(new Error(`${code}: simulated`), { code }), 0));
    return read(fd, buffer, offset, length, position, cb);
  }) as typeof read,
};

/** Timers the test runs by hand: the follower's next poll waits until `tick()`. */
function handTimers(): Timers & { tick(): void; pending(): number } {
  const due: Array<() => void> = [];
  return {
    setTimer: (fn) => (due.push(fn), { cancel: () => undefined }),
    tick: () => due.shift()?.(),
    pending: () => due.length,
  };
}

function follow(path: string): { lines: string[]; log: ReturnType<typeof captureLogger>; timers: ReturnType<typeof handTimers>; follower: KernelLogFollower } {
  const lines: string[] = [];
  const log = captureLogger();
  const timers = handTimers();
  const follower = new KernelLogFollower({ path, onLine: (l) => lines.push(l), logger: log.logger, timers, io: failingIo });
  return { lines, log, timers, follower };
}

const RECORD = '6,2042,151213001,-;usb 1-1.4.2: device descriptor read/64, error -71';

let running: KernelLogFollower | undefined;
afterEach(() => {
  running?.stop();
  running = undefined;
  fsMock.failNext.length = 0;
  fsMock.failOpen.length = 0;
});

describe('KernelLogFollower', () => {
  it('reads a record whose end is written after a poll as one line, never two halves', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, RECORD.slice(0, 20));
    const f = follow(file);
    running = f.follower;
    expect(f.follower.start()).toBe(true);
    await waitFor(() => f.timers.pending() > 0, 5_000, 'the first poll');
    expect(f.lines).toEqual([]);
    appendFileSync(file, RECORD.slice(20) + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.length > 0, 5_000, 'the record');
    expect(f.lines).toEqual([RECORD]);
  });

  it('drops a "line" without an end longer than 64 KiB, and reads the next record whole', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, 'x'.repeat(70 * 1024));
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    await waitFor(() => f.timers.pending() > 0, 5_000, 'the first poll');
    appendFileSync(file, 'tail of the garbage\n' + RECORD + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.includes(RECORD), 5_000, 'the record');
    expect(f.lines.every((l) => l.length < 64 * 1024)).toBe(true);
  });

  it('goes on after the ring buffer overwrote a record (EPIPE), and says so once however often it happens', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, RECORD + '\n');
    fsMock.failNext.push('EPIPE', 'EPIPE');
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    await waitFor(() => f.lines.length > 0, 5_000, 'the record after two overruns');
    await waitFor(() => f.timers.pending() > 0, 5_000, 'the next poll');
    fsMock.failNext.push('EPIPE');
    appendFileSync(file, RECORD + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.length > 1, 5_000, 'the second record');
    expect(f.lines).toEqual([RECORD, RECORD]);
    const said = f.log.lines().filter((l) => String(l.msg).startsWith('the kernel overwrote some of its messages'));
    expect(said).toHaveLength(1);
    expect(said[0]!.level).toBe('info');
  });

  it('keeps trying a log whose reads fail, says it once, and reads again once a read works', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, '');
    fsMock.failNext.push('EIO', 'EIO', 'EIO');
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    for (let i = 0; i < 3; i++) {
      await waitFor(() => f.timers.pending() > 0, 5_000, 'the next retry');
      f.timers.tick();
    }
    appendFileSync(file, RECORD + '\n');
    await waitFor(() => f.timers.pending() > 0, 5_000, 'the next poll');
    f.timers.tick();
    await waitFor(() => f.lines.length > 0, 5_000, 'the record once reads work');
    expect(f.log.lines().filter((l) => String(l.msg).startsWith(`reading the kernel's messages from ${file} failed`))).toHaveLength(1);
  });

  // A replay file rotated while it is followed (a recording tool, logrotate):
  // as Telegraf's tail input and `tail -F` do, the rest of the old file is
  // read, then the new one from its start. /dev/kmsg itself is never
  // replaced or truncated; a character device is not checked.
  it('a replay file replaced while followed (renamed, a new one in its place): the rest of the old one, then the new one from its start, one line saying so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmsg-'));
    const file = join(dir, 'kmsg');
    const second = RECORD.replace('2042', '2043');
    const fresh = RECORD.replace('2042', '7');
    writeFileSync(file, RECORD + '\n');
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    await waitFor(() => f.lines.length > 0 && f.timers.pending() > 0, 5_000, 'the first record, then a quiet poll');
    // Written to the old file after its rename: still its record, read before the new file.
    renameSync(file, join(dir, 'kmsg.1'));
    appendFileSync(join(dir, 'kmsg.1'), second + '\n');
    writeFileSync(file, fresh + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.length > 2 || (f.lines.length === 2 && f.timers.pending() > 0), 5_000, 'the records after the rotation');
    expect(f.lines).toEqual([RECORD, second, fresh]);
    appendFileSync(file, RECORD + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.length > 3, 5_000, 'a record appended to the new file');
    expect(f.lines).toEqual([RECORD, second, fresh, RECORD]);
    const said = f.log.lines().filter((l) => String(l.msg).includes('was replaced'));
    expect(said).toEqual([
      expect.objectContaining({ level: 'info', msg: `the kernel log ${file} was replaced by a new file (rotated); reading the new one from its start` }),
    ]);
  });

  it('a replay file truncated while followed (copytruncate): read again from its start, its records whole, one line saying so', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, RECORD + '\n' + RECORD + '\n');
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    await waitFor(() => f.lines.length === 2 && f.timers.pending() > 0, 5_000, 'the two records, then a quiet poll');
    truncateSync(file, 0);
    const after = RECORD.replace('2042', '1');
    appendFileSync(file, after + '\n');
    f.timers.tick();
    await waitFor(() => f.lines.length > 2, 5_000, 'the record written after the truncation');
    expect(f.lines).toEqual([RECORD, RECORD, after]);
    const said = f.log.lines().filter((l) => String(l.msg).includes('was truncated'));
    expect(said).toEqual([expect.objectContaining({ level: 'info', msg: `the kernel log ${file} was truncated; reading it again from its start` })]);
  });

  it('a replay replaced by a file it cannot open yet: the old one kept, one warning however many polls, and the new one read once it opens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmsg-'));
    const file = join(dir, 'kmsg');
    writeFileSync(file, RECORD + '\n');
    const f = follow(file);
    running = f.follower;
    f.follower.start();
    await waitFor(() => f.lines.length > 0 && f.timers.pending() > 0, 5_000, 'the first record, then a quiet poll');
    renameSync(file, join(dir, 'kmsg.1'));
    writeFileSync(file, RECORD.replace('2042', '7') + '\n');
    fsMock.failOpen.push('EACCES', 'EACCES', 'EACCES');
    for (let i = 0; i < 3; i++) {
      f.timers.tick();
      await waitFor(() => f.timers.pending() > 0, 5_000, 'the next poll');
    }
    expect(f.lines).toEqual([RECORD]);
    f.timers.tick();
    await waitFor(() => f.lines.length > 1, 5_000, 'the new file once it opens');
    expect(f.lines).toEqual([RECORD, RECORD.replace('2042', '7')]);
    const warned = f.log.lines().filter((l) => l.level === 'warn');
    expect(warned.map((l) => l.msg)).toEqual([
      `the kernel log ${file} was replaced by a file the agent cannot open (EACCES); trying again every second, said once: check usb.kernelLog`,
    ]);
  });

  it('reads nothing more once stopped, even with a read in flight', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kmsg-')), 'kmsg');
    writeFileSync(file, RECORD + '\n');
    const f = follow(file);
    f.follower.start();
    f.follower.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(f.lines).toEqual([]);
  });
});

describe('a usb.kernelLog that is no kernel log (issue 60)', () => {
  /** A follower whose reads are counted. */
  function counted(path: string) {
    let reads = 0;
    const log = captureLogger();
    const timers = handTimers();
    const io: FollowIo = {
      openSync,
      read: ((...args: Parameters<typeof read>) => {
        reads++;
        return (read as (...a: unknown[]) => void)(...args);
      }) as typeof read,
    };
    const follower = new KernelLogFollower({ path, onLine: () => undefined, logger: log.logger, timers, io });
    running = follower;
    return { follower, log, timers, reads: () => reads };
  }

  it('/dev/zero: said once what it is, and never read (it would keep a core busy for ever)', () => {
    const { follower, log, reads, timers } = counted('/dev/zero');
    expect(follower.start()).toBe(false);
    expect(reads()).toBe(0);
    expect(timers.pending()).toBe(0);
    expect(log.lines().map((l) => l.msg)).toEqual([
      'usb.kernelLog /dev/zero is a character device (1:5) that is not /dev/kmsg (1:11), not a kernel log: the USB layer reads nothing from it (ports, hubs and controllers are not judged). Point it at /dev/kmsg or at a recording of its records, or set it to "" to turn this off; said once',
    ]);
  });

  it('a directory: said once what it is, and never read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-follow-dir-'));
    const { follower, log, reads } = counted(dir);
    expect(follower.start()).toBe(false);
    expect(reads()).toBe(0);
    expect(log.lines().map((l) => String(l.msg))).toEqual([expect.stringMatching(new RegExp(`^usb\\.kernelLog ${dir} is a directory, not a kernel log: `))]);
  });

  it('a file of NUL bytes, or of lines no kernel prints: one read, said once, and the follower stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-follow-garbage-'));
    for (const [name, content, why] of [
      ['zeros', Buffer.alloc(200_000), 'it holds NUL bytes'],
      ['services', Array.from({ length: 300 }, (_, i) => `service${i}   ${i}/tcp`).join('\n') + '\n', 'none of its first 200 lines is a kernel line'],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, content);
      const { follower, log, reads, timers } = counted(path);
      expect(follower.start()).toBe(true);
      await waitFor(() => log.lines().length > 0, 5_000, 'the line saying what it is');
      await new Promise((r) => setTimeout(r, 20));
      expect(reads()).toBe(1);
      expect(timers.pending()).toBe(0);
      expect(log.lines().map((l) => String(l.msg))).toEqual([expect.stringContaining(`is a file whose start is no kernel log (${why}`)]);
    }
  });
});
