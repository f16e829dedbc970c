// The daemon's node id when none is kept yet and the state directory has no
// room for one (issue 42). Exit 2 would be untrue (nothing in the settings is
// wrong) and final (systemd does not restart it), so the daemon waits for
// space instead, saying so once; a report under an id it cannot keep would
// show the phones under a new host at every start, so it sends none meanwhile.
import { NoSpaceForNodeId, resolveNodeId } from '../config/node-id.js';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log/logger.js';

/** How often the id is tried again; SIGHUP (after freeing space) tries at once. */
const RETRY_MS = 30_000;

/** The node id once it is kept; undefined when `stopped` settles first. Other errors are thrown as resolveNodeId throws them. */
export async function nodeIdWhenKept(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  stopped: Promise<unknown>,
  retryMs = RETRY_MS,
): Promise<string | undefined> {
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
    const next = await nextTry(retryMs, stopped);
    if (next === 'stopped') return undefined;
    asked = next === 'sighup';
  }
}

/** Which came first: the time to try again, a SIGHUP, or the stop. */
function nextTry(ms: number, stopped: Promise<unknown>): Promise<'timer' | 'sighup' | 'stopped'> {
  return new Promise((resolve) => {
    const done = (how: 'timer' | 'sighup' | 'stopped') => (): void => {
      clearTimeout(timer);
      process.off('SIGHUP', sighup);
      resolve(how);
    };
    const sighup = done('sighup');
    const timer = setTimeout(done('timer'), ms);
    process.on('SIGHUP', sighup);
    void stopped.then(done('stopped'));
  });
}
