// The typed errors of the iOS side that a caller tells apart (a deadline or a usbmuxd refusal is a plain Error: its
// message is all that is read). Messages say what happened; callers add what to do.

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
