/** The adb server cannot be used at its address: nothing listens, no answer in time, or what answered is not adb. */
export class AdbUnreachableError extends Error {
  override readonly name = 'AdbUnreachableError';
  constructor(
    readonly address: string,
    readonly code: string,
    detail?: string,
  ) {
    super(
      code === 'ETIMEDOUT'
        ? `the adb server at ${address} accepted the connection but did not answer within ${detail}; it may be hung: restart it ` +
            '("adb kill-server; adb start-server", or restart the device-agent-adb unit)'
        : code === 'EPROTO'
          ? `something at ${address} answered, but not as an adb server (${detail}); point ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT ` +
            'at the adb server, or free the port for it'
          : `no adb server at ${address} (${code}); start one with "adb start-server" ` +
            '(or the device-agent-adb systemd unit), or point ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT at it',
    );
  }
}

/** A device did not open or finish a shell session in time; the session was closed. */
export class ShellTimeoutError extends Error {
  override readonly name = 'ShellTimeoutError';
  constructor(
    readonly serial: string,
    readonly timeoutMs: number,
    readonly partial: string,
    /** 'open': adbd never accepted the shell; 'output': it started but did not finish. */
    readonly phase: 'open' | 'output' = 'output',
  ) {
    super(
      phase === 'open'
        ? `device ${serial} did not open an adb shell within ${timeoutMs} ms; its adbd may be wedged (replug or reboot it)`
        : `device ${serial} did not finish its shell session within ${timeoutMs} ms; the device may be hung (replug or reboot it)`,
    );
  }
}

/**
 * A shell session ended before its command finished: adb's legacy shell has no exit status, so only the command's own
 * last line (ShellOptions.endMarker) tells. `partial` is what arrived.
 */
export class ShellCutError extends Error {
  override readonly name = 'ShellCutError';
  constructor(
    readonly serial: string,
    readonly partial: string,
    readonly bytes: number,
    /** ended: the stream ended early; failed: the connection failed; truncated: more than maxBytes arrived. */
    readonly reason: 'ended' | 'failed' | 'truncated',
    readonly detail?: string,
  ) {
    super(
      reason === 'truncated'
        ? `device ${serial} sent more than ${bytes} bytes of shell output; the rest was not read`
        : reason === 'failed'
          ? `the adb connection to device ${serial} failed after ${bytes} bytes of shell output (${detail ?? 'error'}), before the command finished`
          : `the shell output of device ${serial} ended after ${bytes} bytes, before the command finished: its shell or its adb connection closed`,
    );
  }
}

/** The adb server answered a host command with a refusal ("failed to connect to ...", "device 'X' not found"). */
export class AdbCommandError extends Error {
  override readonly name = 'AdbCommandError';
  constructor(
    readonly command: string,
    readonly answer: string,
  ) {
    super(`adb ${command}: ${answer.trim() || 'no answer'}`);
  }
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EADDRNOTAVAIL', 'ENETUNREACH']);

export function isUnreachable(err: unknown): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && unreachableCodes.has((err as NodeJS.ErrnoException).code ?? '');
}

/** adbkit's parser errors when the peer does not speak the adb host protocol. */
export function isProtocolError(err: unknown): err is Error {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'UnexpectedDataError' || name === 'PrematureEOFError';
}

/** adbkit's FailError: the server answered FAIL with its reason (it was reached, and said no). */
export function isRefusal(err: unknown): err is Error {
  return err instanceof Error && err.name === 'FailError';
}
