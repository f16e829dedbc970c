// What an error on stdout or stderr (EPIPE: the reader went away; EIO: the
// terminal hung up) does to the process. A one-shot command ends quietly:
// nobody is left to read what it prints. The daemon goes on: its job is
// reporting, and a log nobody reads is no reason to stop (an exit 0 under
// systemd's Restart=on-failure would not even be restarted); the log gate
// (src/log/output-gate.ts) drops its lines from then on.

let daemon = false;

/** Called by `run`: from now on an output error never ends the process. */
export function outputErrorsAreNotFatal(): void {
  daemon = true;
}

export type OutputErrorAction = 'exit' | 'ignore' | 'throw';

export function onOutputError(err: { code?: unknown } | undefined): OutputErrorAction {
  if (daemon) return 'ignore';
  return err?.code === 'EPIPE' ? 'exit' : 'throw';
}
