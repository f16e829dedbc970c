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

  it('shows control characters of a message or a field as U+FFFD on a terminal; newlines and tabs stay', () => {
    const lines: string[] = [];
    const terminal = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', pretty: true, destination: terminal });
    logger.warn({ udid: 'EVIL\u001b]0;owned\u0007', note: 'a\\u001b stays text' }, 'the cloud said \u001b[2J\u009bcleared\rline\ttab\nnext');
    const out = lines.join('');
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out).toContain('the cloud said \ufffd[2J\ufffdcleared\ufffdline\ttab\nnext');
    expect(out).toContain('EVIL\ufffd]0;owned\ufffd');
    expect(out).toContain('a\\u001b stays text');
  });
});
