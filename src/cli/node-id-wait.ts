// The daemon's node id when none is kept and the state directory has no room for one: exit 2 would be untrue and final
// (systemd does not restart it), so it waits for space, saying so once, and sends nothing under an id it cannot keep.
import { NoSpaceForNodeId, resolveNodeId } from '../config/node-id.js';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log/logger.js';

/** How often the id is tried again; SIGHUP (after freeing space) tries at once. */
const RETRY_MS = 30_000;

/** The node id once it is kept; undefined when `stopped` settles first. Other errors are thrown as resolveNodeId throws them. */
export async function nodeIdWhenKept(settings: Settings, env: NodeJS.ProcessEnv, logger: Logger, stopped: Promise<unknown>, retryMs = RETRY_MS) {
  // What ends each pause between tries: the time to try again, a SIGHUP (asked), or the stop (which wins).
  let stop = false;
  let asked = false;
  let wake: (() => void) | undefined;
  // Once, not once a pause: a day of 30 s pauses would otherwise hang 2880 callbacks on it.
  void stopped.then(() => {
    stop = true;
    wake?.();
  });
  const sighup = () => {
    asked = true;
    wake?.();
  };
  // One SIGHUP listener for the whole wait: removing a signal's last listener gives it back its default action, which
  // ends the process.
  process.on('SIGHUP', sighup);
  try {
    let said: string | undefined;
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
      asked = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(
          (wake = () => {
            clearTimeout(timer);
            resolve();
          }),
          retryMs,
        );
      });
      wake = undefined;
      if (stop) return undefined;
    }
  } finally {
    process.off('SIGHUP', sighup);
  }
}
