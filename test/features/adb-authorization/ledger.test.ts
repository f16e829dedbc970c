// The adb authorization ledger across restarts: a phone away for 6 days is
// warned about once, by whichever run of the agent is up then, and never
// again for that absence; a file that does not read is a fresh start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthLedger } from '../../../src/features/adb-authorization/ledger.js';
import { captureLogger } from '../../log/capture.js';

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(file: string, clock: { now: number }) {
  const log = captureLogger('info');
  const ledger = new AuthLedger({ file, leadMs: DAY, wall: () => clock.now, logger: log.logger });
  ledger.load();
  return { ledger, warnings: () => log.lines().filter((l) => l.level === 'warn') };
}

describe('the adb authorization ledger', () => {
  it('a phone away for 6 days: one warning, from the run that is up then, none from the runs after it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-'));
    dirs.push(dir);
    const file = join(dir, 'adb-authorizations.json');
    const clock = { now: Date.UTC(2026, 0, 1) };
    const first = run(file, clock);
    first.ledger.seen([{ udid: 'U1', serial: 'SER1', windowMs: WEEK }]);
    clock.now += 60_000;
    first.ledger.seen([]);
    // Restarted a little before 6 days later; the warning comes in its first hour, and is kept at once (a crash
    // right after it does not bring it back).
    clock.now += 6 * DAY - 10 * 60_000;
    const second = run(file, clock);
    second.ledger.seen([]);
    clock.now += 10 * 60_000;
    second.ledger.seen([]);
    second.ledger.seen([]);
    expect(second.warnings().map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^phone U1 \(adb serial SER1\) has been away from this host since 2026-01-01T00:00:00\.000Z: it keeps this host's adb authorization for 7 days .* drops it at 2026-01-08T00:00:00\.000Z, in 24 h: plug it in before then/,
      ),
    ]);
    expect(second.ledger.counts()).toEqual({ lapsing: 1, lapsed: 0 });
    const crashed = run(file, clock);
    crashed.ledger.seen([]);
    expect(crashed.warnings()).toEqual([]);
    clock.now += 2 * DAY;
    const third = run(file, clock);
    third.ledger.seen([]);
    expect(third.warnings()).toEqual([]);
    expect(third.ledger.counts()).toEqual({ lapsing: 0, lapsed: 1 });
    expect(third.ledger.lapsedOf('U1', 'SER1')).toMatchObject({ udid: 'U1' });
    expect(third.ledger.lapsedOf(undefined, 'SER1')).toMatchObject({ udid: 'U1' });
    expect(third.ledger.lapsedOf(undefined, 'OTHER')).toBeUndefined();
  });

  it('a file that does not read: one warning, and a fresh start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-'));
    dirs.push(dir);
    const file = join(dir, 'adb-authorizations.json');
    writeFileSync(file, '{not json');
    const clock = { now: 0 };
    const r = run(file, clock);
    expect(r.warnings().map((l) => l.msg)).toEqual([expect.stringContaining('adb-authorizations.json is not one the agent wrote')]);
    r.ledger.seen([{ udid: 'U1', serial: 'SER1', windowMs: WEEK }]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ phones: [{ udid: 'U1', present: true }] });
  });

  it('entries of the wrong shape in the file are left out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-'));
    dirs.push(dir);
    const file = join(dir, 'adb-authorizations.json');
    writeFileSync(file, JSON.stringify({ phones: [{ udid: 'U1' }, { udid: 'U2', serial: 'S', lastSeenWall: 0, windowMs: WEEK, present: false }] }));
    const clock = { now: 6 * DAY + 1 };
    const r = run(file, clock);
    r.ledger.seen([]);
    expect(r.warnings().map((l) => l.udid)).toEqual(['U2']);
  });
});
