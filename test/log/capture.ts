import { createLogger, type Logger } from '../../src/log/logger.js';

/** A JSON logger whose lines a test reads back, parsed. */
export function captureLogger(level = 'debug'): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  const logger = createLogger({ level, pretty: false, destination: { write: (line: string) => raw.push(line) } });
  return { logger, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
