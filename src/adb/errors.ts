/** The adb server did not answer at its address. */
export class AdbUnreachableError extends Error {
  override readonly name = 'AdbUnreachableError';
  constructor(
    readonly address: string,
    readonly code: string,
  ) {
    super(
      `no adb server at ${address} (${code}); start one with "adb start-server" ` +
        '(or the device-agent-adb systemd unit), or point ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT at it',
    );
  }
}

/** A device did not finish a shell session in time; the session was closed. */
export class ShellTimeoutError extends Error {
  override readonly name = 'ShellTimeoutError';
  constructor(
    readonly serial: string,
    readonly timeoutMs: number,
    readonly partial: string,
  ) {
    super(`device ${serial} did not finish its shell session within ${timeoutMs} ms; the device may be hung (replug or reboot it)`);
  }
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);

export function isUnreachable(err: unknown): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && unreachableCodes.has((err as NodeJS.ErrnoException).code ?? '');
}
