import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ReportedStore } from '../../src/report/reported-store.js';
import { silentLogger } from '../../src/log/logger.js';

// Issue 33, finding 6: the daemon and a `once` run beside it share the state
// directory. With one fixed temporary name, 95 of 26,785 reads saw an empty
// reported-devices.json and writers failed with ENOENT. Here separate
// processes (the compiled fixture, as the packaged commands are compiled)
// write and read one store at once.

const hammer = resolve(fileURLToPath(import.meta.url), '../../../dist/test/util/fixtures/state-hammer.js');
const run = promisify(execFile);

interface Seen {
  rounds: number;
  empty: number;
  problems: number;
  first?: string;
}

async function hammerOf(args: string[]): Promise<Seen> {
  const { stdout } = await run(process.execPath, [hammer, ...args], { timeout: 30_000 });
  return JSON.parse(stdout) as Seen;
}

describe('two processes on one state directory', () => {
  it('two writers and a reader at once: every read sees a whole device set, no write fails, no temporary file is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'da-race-'));
    const file = join(dir, 'reported-devices.json');
    const ms = '3000';
    // A set there before the readers start: an empty read can only come from the race.
    await hammerOf(['write', file, '50']);
    const [w1, w2, r] = await Promise.all([hammerOf(['write', file, ms]), hammerOf(['write', file, ms]), hammerOf(['read', file, ms])]);
    expect(w1.rounds + w2.rounds).toBeGreaterThan(100);
    expect(r.rounds).toBeGreaterThan(100);
    expect({ writeProblems: w1.problems + w2.problems, first: w1.first ?? w2.first }).toEqual({ writeProblems: 0, first: undefined });
    expect({ emptyReads: r.empty, readProblems: r.problems, first: r.first }).toEqual({ emptyReads: 0, readProblems: 0, first: undefined });
    expect(readdirSync(dir)).toEqual(['reported-devices.json']);
    expect(new ReportedStore(file, silentLogger()).load()?.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('processes started at once on an empty state directory all keep one node id', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'da-race-id-'));
      const ids = await Promise.all([1, 2, 3, 4].map(() => run(process.execPath, [hammer, 'node-id', dir], { timeout: 30_000 }).then((r) => r.stdout.trim())));
      expect(new Set(ids).size, ids.join(' ')).toBe(1);
    }
  }, 60_000);
});
