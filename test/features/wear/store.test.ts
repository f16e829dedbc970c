import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bounded, MAX_PHONES, WearFile } from '../../../src/features/wear/store.js';
import { captureLogger } from '../../log/capture.js';

// The wear histories in the state directory: what the agent wrote comes back,
// anything else is an empty start with one line (a hand-edited or foreign
// file never throws nor poisons a forecast), and the phones are bounded.

const file = (text?: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'wear-store-')), 'wear-history.json');
  if (text !== undefined) writeFileSync(path, text);
  return path;
};

describe('WearFile', () => {
  it('reads back what it saved; no file is no history, and no line', () => {
    const log = captureLogger('info');
    const path = file();
    const store = new WearFile(path, log.logger);
    expect(store.load()).toEqual(new Map());
    expect(store.save(new Map([['R58M', [{ day: 20_000, health: 91, cycles: 300 }]]]))).toBe(true);
    expect(store.load()).toEqual(new Map([['R58M', [{ day: 20_000, health: 91, cycles: 300 }]]]));
    expect(log.lines()).toEqual([]);
  });

  it('starts empty, with one line, from a file that is not its JSON or holds a figure of the wrong type; a hand-edited one keeps what is valid', () => {
    for (const text of ['not json', '{"phones":{"A":[{"day":"x"}]}}', '{"phones":{"A":[{"day":1,"health":"91"}]}}', '[]']) {
      const log = captureLogger('info');
      expect(new WearFile(file(text), log.logger).load()).toEqual(new Map());
      expect(log.lines().map((l) => String(l.msg))).toEqual([expect.stringMatching(/not one the agent wrote; (its|their|forecasts)/)]);
    }
    const log = captureLogger('info');
    const mixed = new WearFile(file('{"phones":{"A":[{"day":1,"health":91}],"B":[{"day":"x"}]}}'), log.logger).load();
    expect(mixed).toEqual(new Map([['A', [{ day: 1, health: 91 }]]]));
    expect(log.lines()).toHaveLength(1);
  });

  it('keeps at most MAX_PHONES phones, those seen last', () => {
    const many = new Map(Array.from({ length: MAX_PHONES + 3 }, (_, i): [string, Array<{ day: number }>] => [`P${i}`, [{ day: i }]]));
    const kept = bounded(many);
    expect(kept.size).toBe(MAX_PHONES);
    expect(kept.has('P0')).toBe(false);
    expect(kept.has(`P${MAX_PHONES + 2}`)).toBe(true);
  });
});
