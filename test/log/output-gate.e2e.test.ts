import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';

// The log output as a real pipe to a real reader process that starts reading
// late. (A reader that is gone: test/e2e/log-output.test.ts, the daemon.)

const waitFor = async (done: () => boolean, timeoutMs: number) => {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the log output gate', () => {
  it('a reader that stalls: at most the bound stays in memory, and the first line after the stall says how many were dropped', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'da-gate-')), 'out');
    const reader = spawn('sh', ['-c', 'sleep 2; exec cat > "$OUT"'], {
      env: { OUT: out, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const bound = 64 * 1024;
    const logger = createLogger({ destination: reader.stdin, pretty: false, maxBufferedBytes: bound });
    let most = 0;
    const lines = 20_000;
    for (let i = 0; i < lines; i++) {
      logger.info({ i }, 'x'.repeat(100));
      most = Math.max(most, reader.stdin.writableLength);
    }
    // Without the gate: about 2.6 MB held for the reader.
    expect(most).toBeLessThanOrEqual(bound + 200);
    await waitFor(() => reader.stdin.writableLength === 0, 15_000);
    logger.info('after the stall');
    await new Promise((r) => reader.stdin.end(r));
    await new Promise((r) => reader.once('exit', r));
    const written = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [note, last] = written.slice(-2);
    expect(last?.msg).toBe('after the stall');
    expect(note).toMatchObject({ level: 'warn', msg: expect.stringMatching(/^\d+ log lines were dropped: the log output was not read fast enough/) });
    expect(written.length - 2 + Number(note?.dropped)).toBe(lines);
  }, 30_000);
});
