// What an error on stdout or stderr (EPIPE, EIO) does: a one-shot command ends quietly, nobody is left to read it. The
// daemon goes on (a log nobody reads is no reason to stop reporting); the log gate drops its lines from then on.

let daemon = false;

/** Called by `run`: from now on an output error never ends the process. */
export function outputErrorsAreNotFatal() {
  daemon = true;
}

/** What the launcher does with an error of stdout or stderr: 'exit' quietly, 'ignore' it, or 'throw' it. */
export function onOutputError(err: { code?: unknown } | undefined) {
  if (daemon) return 'ignore';
  return err?.code === 'EPIPE' ? 'exit' : 'throw';
}
