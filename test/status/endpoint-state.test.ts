import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keptState, STATUS_STATE_FILE } from '../../src/status/endpoint-state.js';
import { processIdentity } from '../../src/util/process-identity.js';

// keptState answers `once`, `list`, `quarantine` and `doctor`: "does a daemon run on this state directory?". A file that
// is not the daemon's, or names a process that is not it, answers no (once then sends); only a running daemon answers yes.

const dirs: string[] = [];
const stateDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-kept-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const state = (over: object = {}) =>
  JSON.stringify({ pid: process.pid, started: processIdentity(process.pid), since: '2026-11-30T10:00:00.000Z', listen: 'off', listening: false, ...over });
const keep = (text: string) => {
  const dir = stateDir();
  writeFileSync(join(dir, STATUS_STATE_FILE), text);
  return dir;
};
/** A pid no process has: the kernel hands out pids below pid_max. */
const noPid = () => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));

describe('keptState', () => {
  it('a running daemon: its state', () => {
    expect(keptState(keep(state()))).toMatchObject({ pid: process.pid, listen: 'off', listening: false });
  });

  it('a state without who the pid was (an older daemon): a live pid is taken for it', () => {
    expect(keptState(keep(state({ started: undefined })))?.pid).toBe(process.pid);
  });

  it.each([
    ['no file', () => stateDir()],
    ['a pid that is gone', () => keep(state({ pid: noPid(), started: undefined }))],
    ['a live pid that is another process now (handed out again)', () => keep(state({ started: 'another-boot/1' }))],
    ['not JSON', () => keep('{"pid": 1, "listen": "of')],
    ['JSON of another shape', () => keep(JSON.stringify({ pid: String(process.pid), listen: 'off', listening: false, since: 'x' }))],
    ['a pid that names no process (0 would signal the group)', () => keep(state({ pid: 0, started: undefined }))],
    ['more than the agent writes', () => keep(state({ problem: 'x'.repeat(64 * 1024) }))],
    [
      'a directory',
      () => {
        const dir = stateDir();
        mkdirSync(join(dir, STATUS_STATE_FILE));
        return dir;
      },
    ],
    [
      'a symbolic link to a running state',
      () => {
        const dir = stateDir();
        writeFileSync(join(dir, 'elsewhere.json'), state());
        symlinkSync(join(dir, 'elsewhere.json'), join(dir, STATUS_STATE_FILE));
        return dir;
      },
    ],
  ])('%s: none', (_, dir) => {
    expect(keptState(dir())).toBeUndefined();
  });
});
