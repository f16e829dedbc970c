import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyStream } from '../../src/log/logger.js';

describe('pretty output on a terminal', () => {
  it('falls back to JSON lines when pino-pretty is not installed (an install without dev packages)', () => {
    const target = { write: () => true };
    expect(prettyStream(target, 'pino-pretty-not-installed')).toBe(target);
  });

  it('logs through the fallback without throwing', () => {
    const lines: string[] = [];
    const target = { write: (line: string) => lines.push(line) > 0 };
    const logger = createLogger({ level: 'info', pretty: false, destination: prettyStream(target, 'pino-pretty-not-installed') });
    logger.info({ devices: 3 }, 'report delivered');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'info', devices: 3, msg: 'report delivered' });
  });

  it('formats through pino-pretty where it is installed', () => {
    const lines: string[] = [];
    const terminal = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', pretty: true, destination: terminal });
    logger.info('report delivered');
    expect(lines.join('')).toMatch(/INFO.*report delivered/);
    expect(() => JSON.parse(lines.join(''))).toThrow();
  });
});
