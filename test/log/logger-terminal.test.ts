import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';

// Issue 42, 8c: log lines on a terminal (pino-pretty) showed a phone's U+202E
// as it is, reversing the rest of the line, and were coloured under NO_COLOR.
// The list table shows each format character as U+FFFD; the log lines now do
// the same. A sink that says it is a TTY is what the logger looks at.

function terminal(): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY: true, text: () => chunks.join('') });
}

const ODD = 'EVIL\u202Egnp.exe \u2066x\u2069 zero\u200Bwidth soft\u00ADhyphen bom\uFEFF';

describe('log lines on a terminal', () => {
  it('show bidi, zero-width and other format characters of a phone as U+FFFD, in the message and in the fields', () => {
    const out = terminal();
    const logger = createLogger({ destination: out, env: { NO_COLOR: '1' } });
    logger.warn({ serial: ODD }, `device ${ODD} is odd`);
    const text = out.text();
    expect(text).toContain('EVIL\ufffdgnp.exe');
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u00AD\uFEFF]/);
    // Text that merely looks like an escape stays as it is.
    logger.warn('escaped \\u202e stays text');
    expect(out.text()).toContain('escaped \\u202e stays text');
  });

  it('are not coloured when NO_COLOR is set, nor with TERM=dumb; coloured otherwise', () => {
    for (const env of [{ NO_COLOR: '1' }, { TERM: 'dumb' }]) {
      const out = terminal();
      createLogger({ destination: out, env }).warn('hot battery');
      expect(out.text()).toMatch(/WARN/);
      expect(out.text()).not.toContain('\u001b[');
    }
    const out = terminal();
    createLogger({ destination: out, env: {} }).warn('hot battery');
    expect(out.text()).toContain('\u001b[');
  });
});
