import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEPT_DAYS } from '../../../src/features/wear/history.js';
import { bound, MAX_PHONES, WearFile } from '../../../src/features/wear/store.js';
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
    expect(store.load()).toBeUndefined();
    expect(store.save(new Map([['R58M', [{ day: 20_000, health: 91, cycles: 300 }]]]))).toBe(true);
    expect(store.load()).toEqual(new Map([['R58M', [{ day: 20_000, health: 91, cycles: 300 }]]]));
    expect(log.lines()).toEqual([]);
  });

  it('starts empty, with one line, from a file that is not its JSON or holds a figure of the wrong type; a hand-edited one keeps what is valid', () => {
    for (const text of ['not json', '{"phones":{"A":[{"day":"x"}]}}', '{"phones":{"A":[{"day":1,"health":"91"}]}}', '[]']) {
      const log = captureLogger('info');
      expect(new WearFile(file(text), log.logger).load() ?? new Map()).toEqual(new Map());
      expect(log.lines().map((l) => String(l.msg))).toEqual([expect.stringMatching(/not one the agent wrote; (its|their|forecasts)/)]);
    }
    const log = captureLogger('info');
    const mixed = new WearFile(file('{"phones":{"A":[{"day":1,"health":91}],"B":[{"day":"x"}]}}'), log.logger).load();
    expect(mixed).toEqual(new Map([['A', [{ day: 1, health: 91 }]]]));
    expect(log.lines()).toHaveLength(1);
  });

  it('keeps at most MAX_PHONES phones, those seen last', () => {
    const today = 20_000;
    const older = Array.from({ length: 3 }, (_, i): [string, Array<{ day: number }>] => [`OLD${i}`, [{ day: today - 100 + i }]]);
    const recent = Array.from({ length: MAX_PHONES }, (_, i): [string, Array<{ day: number }>] => [`P${i}`, [{ day: today }]]);
    const kept = new Map([...older, ...recent]);
    bound(kept, today);
    expect(kept.size).toBe(MAX_PHONES);
    expect(['OLD0', 'OLD1', 'OLD2'].filter((u) => kept.has(u))).toEqual([]);
  });

  it('drops a phone whose newest day is past the horizon: nothing of it is read any more', () => {
    const today = 20_000;
    const histories = new Map([
      ['GONE', [{ day: today - 200 }, { day: today - KEPT_DAYS, health: 90 }]],
      ['EDGE', [{ day: today - KEPT_DAYS + 1, health: 90 }]],
      ['AHEAD', [{ day: today + 3, health: 90 }]],
    ]);
    bound(histories, today);
    expect([...histories.keys()]).toEqual(['EDGE', 'AHEAD']);
  });
});
