// The few typed errors of the iOS side. Messages say what happened; callers add what to do.

/** An I/O step did not finish within its deadline. */
export class IosTimeoutError extends Error {
  override name = 'IosTimeoutError';
  constructor(
    readonly step: string,
    readonly timeoutMs: number,
  ) {
    super(`${step} did not answer within ${timeoutMs} ms`);
  }
}

/** usbmuxd answered a request with a non-zero Result. */
export class UsbmuxdError extends Error {
  override name = 'UsbmuxdError';
  constructor(
    readonly request: string,
    readonly code: number,
  ) {
    super(`usbmuxd refused ${request} (result ${code}${RESULTS[code] ? `: ${RESULTS[code]}` : ''})`);
  }
}

const RESULTS: Record<number, string> = { 1: 'bad command', 2: 'bad device', 3: 'connection refused', 6: 'bad version' };

/** lockdown answered with an Error string (InvalidHostID, PasswordProtected...). */
export class LockdownError extends Error {
  override name = 'LockdownError';
  constructor(
    readonly request: string,
    readonly code: string,
  ) {
    super(`lockdown refused ${request}: ${code}`);
  }
}

/** The peer broke the protocol (oversized or unreadable frame). */
export class IosProtocolError extends Error {
  override name = 'IosProtocolError';
}
