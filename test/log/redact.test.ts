import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLogger } from '../../src/log/logger.js';
import { addSecret, clearSecrets, MASK, maskString } from '../../src/log/redact.js';

describe('maskString: URLs with credentials', () => {
  it('masks the password of any URL, keeping scheme, user and host', () => {
    expect(maskString('HTTPS_PROXY=http://lab:s3cr%40t@proxy.corp:3128 failed')).toBe('HTTPS_PROXY=http://lab:***@proxy.corp:3128 failed');
    expect(maskString('{"url":"http://u:p@10.0.0.1:8080/"}')).toBe('{"url":"http://u:***@10.0.0.1:8080/"}');
    expect(maskString('socks5h://:only-pw@proxy:1080')).toBe('socks5h://:***@proxy:1080');
  });

  it('leaves URLs without a password, and the placeholder of advice, as they are', () => {
    expect(maskString('http://proxy.corp:3128 and http://user@proxy:3128')).toBe('http://proxy.corp:3128 and http://user@proxy:3128');
    expect(maskString('write it as http://USER:PASSWORD@HOST:PORT')).toBe('write it as http://USER:PASSWORD@HOST:PORT');
  });
});

describe('maskString: a secret as the logger writes it', () => {
  // The mask runs on the JSON line: a key with characters JSON escapes, or a
  // URL percent-encodes, reaches it in that form, not as it was registered.
  const keys = ['k3y"with\\quote', 'tab\there-and-more', 'slash/and?query&and=more', 'plain-key-1234'];

  it.each(keys)('masks %j in a JSON line, raw and percent-encoded', (key) => {
    const raw: string[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => raw.push(line) } });
    addSecret(key);
    try {
      logger.warn({ err: `request failed with ${key}`, url: `https://cloud.example/v1?key=${encodeURIComponent(key)}` }, `key ${key} refused`);
    } finally {
      clearSecrets();
    }
    const line = raw.join('');
    expect(line).toContain(MASK);
    expect(line).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(line).not.toContain(encodeURIComponent(key));
    expect(JSON.parse(line)).toMatchObject({ msg: `key ${MASK} refused` });
  });

  it('fuzz: no registered key of 8 or more characters survives a JSON line', () => {
    const raw: string[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => raw.push(line) } });
    // Printable ASCII and the characters JSON escapes: what an operator can paste as a key.
    const char = fc.oneof(
      fc.constantFrom('"', '\\', '\t', '\n', '/', '?', '&', '=', '%', '+'),
      fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme-ascii' }),
    );
    fc.assert(
      fc.property(fc.array(char, { minLength: 8, maxLength: 24 }), (chars) => {
        const key = chars.join('');
        raw.length = 0;
        logger.info({ detail: 'x' }, 'the key is x');
        // A key that is part of the line's own JSON skeleton would be masked there too: not a key anyone has.
        fc.pre(!raw.join('').includes(key) && !raw.join('').includes(JSON.stringify(key).slice(1, -1)));
        raw.length = 0;
        addSecret(key);
        try {
          logger.info({ detail: key }, `the key is ${key}`);
        } finally {
          clearSecrets();
        }
        const parsed = JSON.parse(raw.join('')) as { msg: string; detail: string };
        expect(parsed.msg).not.toContain(key);
        expect(parsed.detail).not.toContain(key);
      }),
      { numRuns: 300 },
    );
  });
});
