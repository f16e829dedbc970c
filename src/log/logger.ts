import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import { maskString } from './redact.js';
import { colourWanted } from '../util/paint.js';

export type { Logger };

/** Anything lines can be written to: a stream, or a test's capture; a stream's state says whether it still takes lines. */
export interface Sink {
  write(line: string): unknown;
  isTTY?: boolean;
  writableLength?: number;
  destroyed?: boolean;
  writableEnded?: boolean;
}

export interface LoggerOptions {
  level?: string;
  /** Human-readable lines instead of JSON (default: when stderr is a TTY). */
  pretty?: boolean;
  /** Where lines go; defaults to stderr so that stdout stays for command output. */
  destination?: Sink;
  /** Most bytes left unread in the destination before lines are dropped (see createLogger). */
  maxBufferedBytes?: number;
  /** Where NO_COLOR and TERM are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Lines held back, by the fields of the call and pino's level number: true keeps the line from being written now, and
   * `write` writes it later if at all (`list` holds a line about one device, which its row may say).
   */
  hold?: (fields: Readonly<Record<string, unknown>>, level: number, write: () => void) => boolean;
}

const redactPaths = [
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.*.headers.authorization',
  '*.*.headers.Authorization',
];

/** About 5,000 log lines: far more than any burst the agent writes, little memory. */
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Creates the agent's logger. Every serialized line is passed through maskString as a last line of defence, so a secret
 * inside an error message or a nested object is masked too.
 *
 * Node writes to a pipe asynchronously and keeps in memory whatever the reader has not taken yet, without limit: a log
 * reader that stalls (a hung `tee`, a paused pager, a blocked log driver) would grow the daemon by every line it
 * writes, for as long as it stalls. A reader that went away leaves a destroyed stream. So a line goes through only when
 * the output is alive and holds less than `maxBufferedBytes`; the lines dropped are counted, so that the first line
 * after a stall says how many were lost.
 */
export function createLogger(options: LoggerOptions = {}) {
  const target = options.destination ?? process.stderr;
  const pretty = options.pretty ?? Boolean(target.isTTY);
  const sink = pretty ? prettyStream(target, 'pino-pretty', options.env ?? process.env) : target;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  let dropped = 0;
  const masked = {
    write(line: string) {
      if (target.destroyed || target.writableEnded || (target.writableLength ?? 0) > maxBufferedBytes) {
        dropped++;
        return;
      }
      if (dropped) sink.write(droppedLine(dropped));
      dropped = 0;
      sink.write(pretty ? printable(maskString(line)) : maskString(line));
    },
  };
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      redact: { paths: redactPaths, censor: '***' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(options.hold && { hooks: { logMethod: holding(options.hold) } }),
    },
    masked,
  );
}

/** pino's logMethod hook that holds the calls `hold` takes: their first argument is the line's fields when it is an object. */
function holding(hold: NonNullable<LoggerOptions['hold']>) {
  return function (this: Logger, args: Parameters<Logger['info']>, method: Logger['info'], level: number) {
    const first = args[0];
    const fields = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
    if (hold(fields, level, () => method.apply(this, args))) return;
    method.apply(this, args);
  };
}

/**
 * A JSON line whose text, once pino-pretty unescapes it for a terminal, holds no control character but newline and tab
 * (an error's stack runs over lines) and no format character: a serial, a device name or a cloud's message with an
 * escape sequence would otherwise be run by the terminal, and a bidi override (U+202E) or a zero-width character would
 * reorder or hide what follows it, as the list table already shows them (issue 42, 8c). Each becomes U+FFFD. JSON
 * escapes controls but leaves format characters as they are, so those are matched both raw and escaped. Escaped
 * backslashes are matched as pairs, so text that merely looks like an escape stays. JSON lines need nothing: a log
 * collector reads them as data.
 */
export function printable(jsonLine: string) {
  return jsonLine.replace(/\\(?:\\|u([0-9a-fA-F]{4})|[bfr])|[\u0080-\u009f\p{Cf}]/gu, (m, code?: string) => {
    if (m === '\\\\') return m;
    if (code === undefined || UNPRINTABLE.test(String.fromCharCode(Number.parseInt(code, 16)))) return '\\ufffd';
    return m;
  });
}

// C0 controls but tab and newline, DEL, the C1 controls, and Unicode's format characters (Cf).
const UNPRINTABLE = /^[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}]$/u;

/** A line in pino's own shape, written by the gate itself: the logger is in the middle of a write. */
function droppedLine(dropped: number) {
  const msg = `${dropped} log line${dropped === 1 ? ' was' : 's were'} dropped: the log output was not read fast enough; nothing else was affected`;
  return `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), pid: process.pid, dropped, msg })}\n`;
}

// pino-pretty is loaded lazily: JSON output (services, containers) never needs it. It is a production dependency,
// shipped in the package and the image (`--log-format pretty` there, issue 61; test/packaging/production-deps.test.ts):
// an install that lacks it anyway gets plain JSON lines rather than a crash.
export function prettyStream(target: Sink, moduleName = 'pino-pretty', env = process.env) {
  const require = createRequire(import.meta.url);
  let build: (opts: Record<string, unknown>) => Sink;
  try {
    build = require(moduleName) as typeof build;
  } catch {
    return target;
  }
  return build({
    destination: target,
    // no-color.org: NO_COLOR set and not empty means no colour, on the log lines as on the table.
    colorize: colourWanted(target, env),
    translateTime: 'SYS:standard',
    ignore: 'pid,hostname',
    sync: true,
  });
}

/** A logger that drops everything, for unit tests of code that logs. */
export function silentLogger() {
  return pino({ level: 'silent' });
}
