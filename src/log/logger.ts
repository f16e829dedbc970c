import { pino, type Logger, type DestinationStream } from 'pino';
import { createRequire } from 'node:module';
import { maskString } from './redact.js';

export type { Logger };

/** Anything lines can be written to: a stream, or a test's capture. */
export interface Sink {
  write(line: string): unknown;
  isTTY?: boolean;
}

export interface LoggerOptions {
  level?: string;
  /** Human-readable lines instead of JSON (default: when stderr is a TTY). */
  pretty?: boolean;
  /** Where lines go; defaults to stderr so that stdout stays for command output. */
  destination?: Sink;
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

/**
 * Creates the agent's logger. Every serialized line is passed through
 * maskString as a last line of defence, so a secret inside an error message
 * or a nested object is masked too.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const target = options.destination ?? process.stderr;
  const pretty = options.pretty ?? Boolean(target.isTTY);
  const sink = pretty ? prettyStream(target) : target;
  const masked: DestinationStream = {
    write(line: string) {
      sink.write(maskString(line));
    },
  };
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      redact: { paths: redactPaths, censor: '***' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    masked,
  );
}

// pino-pretty is loaded lazily: JSON output (services, containers) never needs
// it. It is a dev dependency, so an install without dev packages (the
// container image) has none: a terminal then gets plain JSON lines rather
// than a crash.
export function prettyStream(target: Sink, moduleName = 'pino-pretty'): Sink {
  const require = createRequire(import.meta.url);
  let build: (opts: Record<string, unknown>) => Sink;
  try {
    build = require(moduleName) as typeof build;
  } catch {
    return target;
  }
  return build({
    destination: target,
    colorize: Boolean(target.isTTY),
    translateTime: 'SYS:standard',
    ignore: 'pid,hostname',
    sync: true,
  });
}

/** A logger that drops everything, for unit tests of code that logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
