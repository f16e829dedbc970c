// Follows a kernel log: /dev/kmsg, a record per read, or a recorded file read to its end and watched for more. Opened
// read-only and non-blocking, polled on the injected timers a second apart when idle. A rotated recording is read on
// from the new file's start once the old is done, as `tail -F` does. What is no kernel log (a directory, another
// device, binary or non-kernel lines) is said once and not followed.
import { closeSync, constants, fstatSync, openSync, read, statSync } from 'node:fs';
import type { Logger } from '../../log/logger.js';
import type { Timer, Timers } from '../../util/clock.js';
import { fileChange } from './follow-rotation.js';
import { notAKernelLog } from './kernel-line.js';
import { logSourceOf } from './log-source.js';

const POLL_MS = 1_000;
/** /dev/kmsg refuses a read into a buffer smaller than its record (EINVAL); its records are at most 8 KiB less the prefix. */
const READ_BYTES = 16 * 1024;
/** Reads in one go before the follower lets other work run. */
const READS_PER_TURN = 256;
/** A "line" longer than this is not a kernel line: dropped rather than kept growing. */
const MAX_LINE = 64 * 1024;

export interface FollowOptions {
  path: string;
  onLine: (line: string) => void;
  /** A replay was rotated: what follows is a new recording, read from its start, whose record numbers start afresh. */
  onRotated?: () => void;
  logger: Logger;
  timers: Timers;
  /** How the log is opened and read: node:fs's calls, unless a test gives ones that fail as /dev/kmsg's can (EPIPE, EIO, EACCES). */
  io?: FollowIo;
}

/** The two calls through which a log's own failures reach the follower. */
export interface FollowIo {
  openSync: typeof openSync;
  read: typeof read;
}

export class KernelLogFollower {
  /** The open log; undefined once stopped (or never opened). */
  private fd: number | undefined;
  private timer: Timer | undefined;
  private partial = '';
  private failing = false;
  private overran = false;
  private newUnreadable = false;
  /** A regular file (a replay) is read at a position the follower keeps, so that a truncation can be seen; /dev/kmsg at its own. */
  private regular = false;
  private position = 0;
  /** Whether the first bytes of a recording or a pipe are still to be looked at. */
  private checkFirst = false;
  private readonly buffer = Buffer.alloc(READ_BYTES);

  private readonly io: FollowIo;

  constructor(private readonly options: FollowOptions) {
    this.io = options.io ?? { openSync, read };
  }

  /** Opens the log and starts following it; false (and one line saying why and what to do) when it cannot be read. */
  start() {
    const { path, logger } = this.options;
    try {
      this.fd = this.io.openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      // Info, not a warning: the agent works as before without it (a container without /dev/kmsg, a host that withholds it).
      logger.info({ path, code: (err as NodeJS.ErrnoException).code }, cannotRead(path, err as NodeJS.ErrnoException));
      return false;
    }
    const stat = identityOf(this.fd);
    const source = stat && logSourceOf(stat);
    if (source?.kind === 'not-a-log') {
      closeSync(this.fd);
      this.fd = undefined;
      logger.warn({ path }, notALog(path, source.what));
      return false;
    }
    this.regular = source?.kind === 'recording';
    this.checkFirst = source?.kind !== 'kmsg';
    this.turn();
    return true;
  }

  stop() {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Closed already: nothing to release.
      }
      this.fd = undefined;
    }
  }

  private turn(reads = 0) {
    const { path, logger } = this.options;
    if (this.fd === undefined) return;
    if (reads >= READS_PER_TURN) {
      this.later(0);
      return;
    }
    this.io.read(this.fd, this.buffer, 0, this.buffer.length, this.regular ? this.position : null, (err, n) => {
      if (this.fd === undefined) return;
      if (err) {
        // EPIPE: the ring buffer overwrote our next record; the read goes on with the oldest kept. Said once per episode.
        if (err.code === 'EPIPE') {
          if (!this.overran) {
            this.overran = true;
            logger.info(
              { path },
              `the kernel overwrote some of its messages before the agent read them (a burst larger than its ring buffer): the USB record may miss failures of that moment; said once`,
            );
          }
          return this.turn(reads + 1);
        }
        // EAGAIN: nothing new. Another error (a directory named, a device gone): said once, until a read works again.
        if (err.code !== 'EAGAIN' && !this.failing) {
          this.failing = true;
          logger.warn(
            { path, code: err.code },
            `reading the kernel's messages from ${path} failed (${err.message}); trying again every second, said once: check usb.kernelLog`,
          );
        }
        return this.later(POLL_MS);
      }
      this.failing = false;
      if (n === 0) {
        // At the end of what is open: the moment to see whether a replay was rotated, with nothing of the old file left unread.
        if (this.regular && this.followRotation()) return this.turn(reads + 1);
        return this.later(POLL_MS);
      }
      this.position += n;
      const text = this.buffer.toString('utf8', 0, n);
      if (this.checkFirst) {
        // Looked at until a whole line has come, within the first 64 KiB.
        this.checkFirst = !text.includes('\n') && this.position < 64 * 1024;
        const why = notAKernelLog(text);
        if (why !== undefined) {
          logger.warn({ path }, notALog(path, `a file whose start is no kernel log (${why})`));
          return this.stop();
        }
      }
      this.take(text);
      this.turn(reads + 1);
    });
  }

  /** True when the follower now reads a rotated replay from its start: the new file, or the old one emptied. */
  private followRotation() {
    const { path, logger } = this.options;
    const open = identityOf(this.fd!);
    // Not known (cannot happen on an open descriptor): go on with the open file.
    if (!open) return false;
    const change = fileChange(open, identityAt(path), this.position);
    if (change === 'same') return false;
    if (change === 'replaced') {
      let fd: number;
      try {
        fd = this.io.openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch (err) {
        // Not readable yet (made, its mode not yet set): the next poll tries again, the old file still open meanwhile; said once.
        const code = (err as NodeJS.ErrnoException).code;
        if (!this.newUnreadable)
          logger.warn(
            { path, code },
            `the kernel log ${path} was replaced by a file the agent cannot open (${code}); trying again every second, said once: check usb.kernelLog`,
          );
        this.newUnreadable = true;
        return false;
      }
      this.newUnreadable = false;
      closeSync(this.fd!);
      this.fd = fd;
      this.regular = identityOf(fd)?.isFile() ?? false;
      this.checkFirst = true;
      logger.info({ path }, `the kernel log ${path} was replaced by a new file (rotated); reading the new one from its start`);
    } else {
      logger.info({ path }, `the kernel log ${path} was truncated; reading it again from its start`);
    }
    // A record cut off at the rotation has no end to come: dropped, never joined to the new file's first.
    this.partial = '';
    this.position = 0;
    this.options.onRotated?.();
    return true;
  }

  private take(text: string) {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > MAX_LINE) this.partial = '';
    for (const line of lines) {
      try {
        this.options.onLine(line);
      } catch (err) {
        this.options.logger.warn({ err }, 'a kernel line could not be read as one; it is skipped');
      }
    }
  }

  private later(ms: number) {
    this.timer = this.options.timers.setTimer(() => this.turn(), ms, { unref: true });
  }
}

function identityOf(fd: number) {
  try {
    return fstatSync(fd);
  } catch {
    return undefined;
  }
}

function notALog(path: string, what: string) {
  return `usb.kernelLog ${path} is ${what}, not a kernel log: the USB layer reads nothing from it (ports, hubs and controllers are not judged). Point it at /dev/kmsg or at a recording of its records, or set it to "" to turn this off; said once`;
}

/** The file the path names now; undefined while there is none (or it cannot be looked at: then the open one is kept). */
function identityAt(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function cannotRead(path: string, err: NodeJS.ErrnoException) {
  if (err.code === 'EACCES' || err.code === 'EPERM') {
    return `cannot read the kernel's messages at ${path} (${err.code}): the USB layer will not say which port, hub or controller fails; give the agent CAP_SYSLOG (or set kernel.dmesg_restrict=0), or set usb.kernelLog to "" to turn this off. Everything else works as before`;
  }
  if (err.code === 'ENOENT') {
    return `cannot read the kernel's messages: ${path} does not exist here (a container started without it, or a unit that hides it: PrivateDevices=yes without BindReadOnlyPaths=/dev/kmsg, or ProtectKernelLogs=yes); the USB layer will not say which port, hub or controller fails. Set usb.kernelLog to "" to turn this off. Everything else works as before`;
  }
  return `cannot read the kernel's messages at ${path} (${err.message}); set usb.kernelLog to "" to turn this off. Everything else works as before`;
}
