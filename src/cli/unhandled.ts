// An unhandled rejection is the agent's bug, not a phone's or the cloud's fault: rather than Node's default, which would
// end the daemon and every phone's reporting with it, one rate-limited line says what happened and whom to tell.
import type { EventEmitter } from 'node:events';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import { errorText } from '../util/error-text.js';

const UNHANDLED_REJECTION_LINE =
  "unexpected failure (unhandled rejection): a bug in the agent, not a fault of the phones, the adb server or the cloud; the agent keeps running; report it to the agent's maintainers with this line";

/** Logs every unhandled rejection of `proc` (the process) instead of dying of it. */
export function logUnhandledRejections(logger: Logger, proc: Pick<EventEmitter, 'on'> = process) {
  proc.on('unhandledRejection', (reason: unknown) => {
    limited(logger).error('unhandled-rejection', { err: errorText(reason) }, UNHANDLED_REJECTION_LINE);
  });
}
