// The daemon's node id when none is kept and the state directory has no room for one: exit 2 would be untrue and final
// (systemd does not restart it), so it waits for space, saying so once, and sends nothing under an id it cannot keep.
import { NoSpaceForNodeId, resolveNodeId } from '../config/node-id.js';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log/logger.js';

/** How often the id is tried again; SIGHUP (after freeing space) tries at once. */
const RETRY_MS = 30_000;

/** The node id once it is kept; undefined when `stopped` settles first. Other errors are thrown as resolveNodeId throws them. */
export async function nodeIdWhenKept(settings: Settings, env: NodeJS.ProcessEnv, logger: Logger, stopped: Promise<unknown>, retryMs = RETRY_MS) {
  // One SIGHUP listener for the whole wait: removing a signal's last listener gives it back its default action, which
  // ends the process.
  const pauses = new Pauses(stopped);
  process.on('SIGHUP', pauses.sighup);
  try {
    let said: string | undefined;
    let asked = false;
    for (;;) {
      try {
        const id = resolveNodeId(settings, env, logger);
        if (said) logger.info({ nodeId: id }, `the node id ${id} is kept in the state directory now; reporting starts`);
        return id;
      } catch (err) {
        if (!(err instanceof NoSpaceForNodeId)) throw err;
        if (err.message !== said) {
          said = err.message;
          logger.warn({ stateDir: err.dir, code: err.code }, `${err.message}; trying again every ${retryMs / 1000} s, or at once on SIGHUP`);
        } else if (asked) {
          // The operator asked (freed space, reloaded): an answer, not a repeat.
          logger.info({ stateDir: err.dir, code: err.code }, `SIGHUP: still no room to keep a node id in ${err.dir} (${err.code}); nothing is reported yet`);
        }
      }
      const next = await pauses.next(retryMs);
      if (next === 'stopped') return undefined;
      asked = next === 'sighup';
    }
  } finally {
    process.off('SIGHUP', pauses.sighup);
  }
}

/** What ends each pause between tries: the time to try again, a SIGHUP, or the stop (which wins). */
class Pauses {
  private stopped = false;
  private asked = false;
  private wake: (() => void) | undefined;

  constructor(stopped: Promise<unknown>) {
    // Once, not once a pause: a day of 30 s pauses would otherwise hang 2880 callbacks on it.
    void stopped.then(() => {
      this.stopped = true;
      this.wake?.();
    });
  }

  readonly sighup = () => {
    this.asked = true;
    this.wake?.();
  };

  next(ms: number): Promise<'timer' | 'sighup' | 'stopped'> {
    return new Promise((resolve) => {
      const settle = () => {
        clearTimeout(timer);
        this.wake = undefined;
        const why = this.stopped ? 'stopped' : this.asked ? 'sighup' : 'timer';
        this.asked = false;
        resolve(why);
      };
      const timer = setTimeout(settle, ms);
      this.wake = settle;
    });
  }
}
