import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateFile, type StateFileKind } from '../../src/config/state-file.js';
import { VirtualTime } from '../support/virtual-time.js';
import { jsonObject } from '../../src/util/json-object.js';
import { captureLogger } from '../log/capture.js';

// The one way the daemon keeps a file in its state directory: what a file
// that is not the agent's means at the start, and what a save that fails
// costs, the same for every feature's file.

const kind: StateFileKind<{ n: number }> = {
  what: 'the counts',
  maxBytes: 64,
  parse: (text) => {
    const n = jsonObject(text)?.n;
    return typeof n === 'number' ? { n } : undefined;
  },
  text: (v) => `${JSON.stringify(v)}\n`,
  lost: 'counting starts from 0',
  unsaved: 'they are kept in memory',
};

const fileIn = () => join(mkdtempSync(join(tmpdir(), 'state-file-')), 'counts.json');
const said = (lines: Array<Record<string, unknown>>) => lines.map((l) => `${String(l.level)}: ${String(l.msg)}`);

describe('StateFile', () => {
  it('no file is a start without one and without a line; a damaged, foreign or too big file is one warning naming it, a start without it, and replaced at the next save', () => {
    const file = fileIn();
    const quiet = captureLogger('info');
    expect(new StateFile(file, kind, quiet.logger).load()).toBeUndefined();
    expect(quiet.lines()).toEqual([]);
    for (const text of ['{"n": 1', '{"n": "1"}', '[]', `{"n": 1, "pad": "${'x'.repeat(64)}"}`]) {
      writeFileSync(file, text);
      const log = captureLogger('info');
      const f = new StateFile(file, kind, log.logger);
      expect(f.load()).toBeUndefined();
      expect(log.lines().map((l) => [l.level, l.file])).toEqual([['warn', file]]);
      expect(String(log.lines()[0]!.msg)).toMatch(/; counting starts from 0/);
      expect(f.save({ n: 2 })).toBe(true);
      expect(new StateFile(file, kind, log.logger).load()).toEqual({ n: 2 });
    }
  });

  it('the periodic save writes what changed, tries a failed save again at each period, said once, and saves once more at the stop', () => {
    const file = fileIn();
    const time = new VirtualTime();
    const log = captureLogger('info');
    const f = new StateFile(file, kind, log.logger);
    let value = { n: 1 };
    const saver = f.every(time.clock(), 1_000, () => value);
    time.advance(1_000);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    f.changed();
    time.advance(1_000);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n');
    // A directory in its place: the save fails, said once however many periods, and the value waits in memory.
    rmSync(file);
    mkdirSync(file);
    value = { n: 2 };
    f.changed();
    time.advance(3_000);
    expect(said(log.lines())).toEqual([
      expect.stringMatching(/^warn: cannot keep the counts in .*counts\.json: .*a directory, not a regular file.*; they are kept in memory$/),
    ]);
    rmdirSync(file);
    time.advance(1_000);
    expect(readFileSync(file, 'utf8')).toBe('{"n":2}\n');
    expect(said(log.lines()).at(-1)).toBe('info: the state directory keeps the counts again');
    value = { n: 3 };
    f.changed();
    saver.stop();
    expect(readFileSync(file, 'utf8')).toBe('{"n":3}\n');
    // Stopped: no period writes again.
    value = { n: 4 };
    f.changed();
    time.advance(5_000);
    expect(readFileSync(file, 'utf8')).toBe('{"n":3}\n');
  });

  it('with a key, a save writes only when the key changed since the file was read or last written', () => {
    const file = fileIn();
    const { logger } = captureLogger();
    const keyed = { ...kind, key: (v: { n: number }) => String(v.n % 10) };
    new StateFile(file, keyed, logger).save({ n: 1 });
    const f = new StateFile(file, keyed, logger);
    expect(f.load()).toEqual({ n: 1 });
    f.save({ n: 11 });
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n');
    f.save({ n: 2 });
    expect(readFileSync(file, 'utf8')).toBe('{"n":2}\n');
  });
});
