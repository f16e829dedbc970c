import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive, processIdentity, startTimeOf } from '../../src/util/process-identity.js';

// Recorded /proc/PID/stat lines; their sources are in fixtures/SOURCES.md.
const stat = (name: string) => readFileSync(new URL(`./fixtures/proc-stat/${name}`, import.meta.url), 'utf8');

describe('startTimeOf: field 22 of /proc/PID/stat', () => {
  it('reads it from recorded lines', () => {
    expect(startTimeOf(stat('cat.txt'))).toBe('3728955');
    expect(startTimeOf(stat('pid-1.txt'))).toBe('20');
  });

  it('counts the fields from the last parenthesis: a command name may hold spaces and parentheses', () => {
    expect(startTimeOf(stat('name-with-parentheses.txt'))).toBe('3731176');
  });

  it('is undefined for a line that is not one', () => {
    for (const text of ['', 'garbage', '12 (x) S 1 2', '12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5 x'])
      expect(startTimeOf(text), JSON.stringify(text)).toBeUndefined();
  });
});

describe('processIdentity', () => {
  it('joins the boot id and the start time; undefined where /proc cannot say', () => {
    const proc = mkdtempSync(join(tmpdir(), 'da-proc-'));
    mkdirSync(join(proc, 'sys/kernel/random'), { recursive: true });
    writeFileSync(join(proc, 'sys/kernel/random/boot_id'), '48c6f4ed-e9eb-4401-91bb-2b8fd2d69c02\n');
    mkdirSync(join(proc, '30314'));
    writeFileSync(join(proc, '30314/stat'), stat('cat.txt'));
    expect(processIdentity(30314, proc)).toBe('48c6f4ed-e9eb-4401-91bb-2b8fd2d69c02/3728955');
    expect(processIdentity(30315, proc)).toBeUndefined();
    expect(processIdentity(30314, join(proc, 'none'))).toBeUndefined();
  });

  it("is this process's own, the same each time it is asked", () => {
    const mine = processIdentity(process.pid);
    expect(mine).toMatch(/^[0-9a-f-]+\/\d+$/);
    expect(processIdentity(process.pid)).toBe(mine);
  });
});

describe('pidAlive', () => {
  it('is true for a live process, this one or another user’s; false for a pid no process has, and for one that is not a pid', () => {
    expect(pidAlive(process.pid)).toBe(true);
    // pid 1 runs on any Linux; a user that may not signal it gets EPERM, which is still alive.
    expect(pidAlive(1)).toBe(true);
    // Pids stay below pid_max: that one is never in use.
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    expect(pidAlive(pidMax)).toBe(false);
    // 0 and -1 would signal a process group, and every process this one may signal.
    for (const notOne of [0, -1, Number.NaN, 1.5]) expect(pidAlive(notOne)).toBe(false);
  });
});
