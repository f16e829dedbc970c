import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pidAlive } from './process-identity.js';

// The state directory is shared: the daemon, `once` and `doctor` run by hand beside it, a second daemon by mistake.
// Each writer therefore uses a temp name of its own (a fixed `FILE.tmp` let one writer rename another's half-written
// file into place, and the other's rename then failed with ENOENT), writers take turns under a lock file, and the
// directory is flushed after each rename so that the new name survives a power loss.

/** A state file that is there but cannot be used as one: a FIFO, a directory, a device node, a symlink. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
  constructor(
    message: string,
    /** The problem in a few words, without the path: 'a FIFO, not a regular file'. */
    readonly reason: string = message,
  ) {
    super(message);
  }
}

/** How long a writer waits for another process's lock before it gives up (the lock is held for one small write). */
const LOCK_WAIT_MS = 5_000;
/** A lock file older than this is left over: the longest hold is one write and fsync of a few MB. */
const LOCK_STALE_MS = 30_000;
const LOCK_NAME = '.lock';
/** A file of this writer's own: O_EXCL, never into a file someone else made; O_NOFOLLOW, never through a link. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** The locks this process holds now. */
const held = new Set<string>();

/**
 * Writes a state file atomically (a temporary file of this writer's own, fsync, rename, fsync of the directory) under
 * the state directory's lock: a crash mid-write leaves the previous content, and a reader in another process sees the
 * old file or the new one, never a part. Throws what the file system said, or a StateFileError for a file that is not a
 * regular one.
 */
export function writeAtomically(file: string, text: string) {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  withStateLock(dir, () => {
    refuseOdd(file);
    sweepLeftovers(file);
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(tmp, CREATE_NEW, 0o640);
    try {
      try {
        // writeFileSync loops over short writes; a bare writeSync on a full disk writes part of the data without an
        // error, and the rename below would then replace a good file with a cut one.
        writeFileSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // Already renamed, or gone with the disk: nothing to clean.
      }
      throw err;
    }
    syncDir(dir);
  });
}

/**
 * Reads a state file; undefined when there is none. Opened without blocking and checked before a byte is read: a FIFO
 * in its place would otherwise hang the start for good, and a device node or a directory is not one. A file bigger than
 * maxBytes is refused, unread.
 */
export function readStateFile(file: string, maxBytes: number) {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw notRegular(file, 'a symbolic link');
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(file, kindOf(stat));
    if (stat.size > maxBytes) throw new StateFileError(`${file} is ${stat.size} bytes, more than the agent writes (at most ${maxBytes})`);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs fn while this process holds the state directory's lock: a file made with O_EXCL holding the holder's pid. A lock
 * whose holder is gone (a crash, SIGKILL) or older than any hold can be is taken over. Waits up to LOCK_WAIT_MS, then
 * throws one line naming the holder. Synchronous: every hold is one small write, so a wait is short, and callers stay
 * simple.
 */
export function withStateLock<T>(dir: string, fn: () => T, waitMs = LOCK_WAIT_MS) {
  const lock = join(dir, LOCK_NAME);
  // Held already by this process (the node id, made under the lock, is written under it): no second take.
  if (held.has(lock)) return fn();
  const deadline = Date.now() + waitMs;
  let pause = 1;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, CREATE_NEW, 0o640);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        writeFileSync(fd, `${process.pid}\n`);
      } catch (err) {
        // A full disk makes the file but not its pid: an empty lock left there is taken for a holder mid-write, and
        // held every write up for 5 s (the event loop with it) until it was 30 s old.
        closeSync(fd);
        try {
          unlinkSync(lock);
        } catch {
          // Gone with the disk: nothing is left to hold anyone up.
        }
        throw err;
      }
      closeSync(fd);
      held.add(lock);
      try {
        return fn();
      } finally {
        held.delete(lock);
        removeLock(lock, `${process.pid}\n`);
      }
    }
    const holder = lockHolder(lock);
    if (holder.stale) {
      removeLock(lock, holder.text);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new StateFileError(
        `the state directory ${dir} is locked by ${holder.pid ? `process ${holder.pid}` : 'another process'} (${lock}) for more than ${waitMs / 1000} s; ` +
          'if no device-agent runs, delete that file',
      );
    }
    sleepSync(pause);
    pause = Math.min(pause * 2, 50);
  }
}

function lockHolder(lock: string) {
  let text: string;
  let stat: Stats;
  try {
    stat = statSync(lock);
    text = readFileSync(lock, 'utf8');
  } catch {
    // Released between our try and this look: try again at once.
    return { text: '', pid: undefined, stale: false };
  }
  const pid = /^\d+\n$/.test(text) ? Number(text.trim()) : undefined;
  const old = Date.now() - stat.mtimeMs > LOCK_STALE_MS;
  // An empty file younger than a hold is a holder between its open and its write.
  return { text, pid, stale: old || (pid !== undefined && !pidAlive(pid)) };
}

/**
 * Removes the lock while it holds what it held when it was judged ours to remove: this process's own pid at a release
 * (a holder judged stale meanwhile, a stop of minutes, must not remove the next one's), a stale holder's text at a
 * break (then the next look judges again).
 */
function removeLock(lock: string, judged: string) {
  try {
    if (readFileSync(lock, 'utf8') === judged) unlinkSync(lock);
  } catch {
    // Gone already, or someone else broke it first: nothing to remove.
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number) {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Temporary files of writers that died mid-write (their pid is gone): removed, so that crashes do not pile them up. */
function sweepLeftovers(file: string) {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (m && !pidAlive(Number(m[1]))) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // Another writer swept it first.
      }
    }
  }
}

/** A state file that exists as something other than a regular file is refused, never replaced unseen. */
function refuseOdd(file: string) {
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!stat.isFile()) throw notRegular(file, kindOf(stat));
}

function notRegular(file: string, kind: string) {
  return new StateFileError(
    `${file} is ${kind}, not a regular file; the agent keeps its state only in regular files: remove it`,
    `${kind}, not a regular file`,
  );
}

function kindOf(stat: Stats) {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device node';
  return 'not a regular file';
}

/** Flushes a directory's entries: without it a rename may not survive a power loss. */
function syncDir(dir: string) {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
