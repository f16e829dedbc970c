import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStateFile, StateFileError, withStateLock, writeAtomically } from '../../src/util/atomic-file.js';

// One test per rule of the state files (issue 33, finding 6). The race of two
// processes on one directory: test/util/state-race.e2e.test.ts; the directory
// flush after a rename: test/util/atomic-file.fsync.test.ts.

const dir = () => mkdtempSync(join(tmpdir(), 'da-atomic-'));

/** A pid that belonged to a process and is free now. */
function deadPid(): number {
  return Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$"'], { encoding: 'utf8' }).trim());
}

describe('writeAtomically', () => {
  it("writes through a temporary file of its own: another writer's temporary file, under the old fixed name or its own, is left alone", () => {
    const d = dir();
    const file = join(d, 'reported-devices.json');
    writeFileSync(file, 'old\n');
    // Another process's writes in flight: the name every writer used before, and one of the new kind (a live pid: ours' parent).
    writeFileSync(`${file}.tmp`, '{"devices":[{"udid":"HALF');
    const theirs = `${file}.${process.ppid}.0123456789ab.tmp`;
    writeFileSync(theirs, '{"devices":[');
    writeAtomically(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(readFileSync(`${file}.tmp`, 'utf8')).toBe('{"devices":[{"udid":"HALF');
    expect(readFileSync(theirs, 'utf8')).toBe('{"devices":[');
    // Its own temporary file is gone: renamed into place.
    expect(readdirSync(d).sort()).toEqual(['reported-devices.json', 'reported-devices.json.tmp', theirs.slice(d.length + 1)].sort());
  });

  it('removes the temporary files of writers that died mid-write', () => {
    const d = dir();
    const file = join(d, 'node-id');
    const left = `${file}.${deadPid()}.00aa00aa00aa.tmp`;
    writeFileSync(left, 'half');
    writeAtomically(file, 'id\n');
    expect(existsSync(left)).toBe(false);
  });

  it('refuses to replace something that is not a regular file (a FIFO, a directory, a symlink), with one line naming it', () => {
    const d = dir();
    const fifo = join(d, 'reported-devices.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => writeAtomically(fifo, 'x')).toThrow(StateFileError);
    expect(() => writeAtomically(fifo, 'x')).toThrow(`${fifo} is a FIFO, not a regular file; the agent keeps its state only in regular files: remove it`);
    const sub = join(d, 'charge-paused-ports.json');
    mkdirSync(sub);
    expect(() => writeAtomically(sub, 'x')).toThrow(/is a directory, not a regular file/);
    const link = join(d, 'node-id');
    writeFileSync(join(d, 'elsewhere'), 'x');
    symlinkSync(join(d, 'elsewhere'), link);
    expect(() => writeAtomically(link, 'y')).toThrow(/is a symbolic link, not a regular file/);
    expect(readFileSync(join(d, 'elsewhere'), 'utf8')).toBe('x');
  });
});

describe('readStateFile', () => {
  it('refuses a FIFO at once, without waiting for a writer that never comes', () => {
    const d = dir();
    const fifo = join(d, 'node-id');
    execFileSync('mkfifo', [fifo]);
    const t0 = Date.now();
    expect(() => readStateFile(fifo, 1024)).toThrow(/node-id is a FIFO, not a regular file/);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(() => readStateFile(d, 1024)).toThrow(/is a directory, not a regular file/);
    expect(() => readStateFile('/dev/zero', 1024)).toThrow(/is a device node, not a regular file/);
  });

  it('reads a regular file whole, says none for a missing one, and refuses one bigger than the bound unread', () => {
    const d = dir();
    const file = join(d, 'reported-devices.json');
    expect(readStateFile(file, 10)).toBeUndefined();
    writeFileSync(file, 'é'.repeat(5));
    expect(readStateFile(file, 10)).toBe('é'.repeat(5));
    writeFileSync(file, 'x'.repeat(11));
    expect(() => readStateFile(file, 10)).toThrow(/is 11 bytes, more than the agent writes \(at most 10\)/);
  });
});

describe('the state directory lock', () => {
  it('waits for a live holder and then gives up with one line naming it; the file is left as it was', async () => {
    const d = dir();
    const file = join(d, 'reported-devices.json');
    writeFileSync(file, 'old\n');
    const holder = spawn('sleep', ['30']);
    try {
      writeFileSync(join(d, '.lock'), `${holder.pid}\n`);
      const t0 = Date.now();
      expect(() => withStateLock(d, () => writeAtomically(file, 'new\n'), 300)).toThrow(
        new RegExp(`locked by process ${holder.pid} \\(${d}/\\.lock\\) for more than 0\\.3 s; if no device-agent runs, delete that file`),
      );
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      expect(readFileSync(file, 'utf8')).toBe('old\n');
    } finally {
      holder.kill();
    }
  });

  it('takes over the lock of a holder that is gone (a crash, SIGKILL), and releases it after', () => {
    const d = dir();
    const file = join(d, 'reported-devices.json');
    writeFileSync(join(d, '.lock'), `${deadPid()}\n`);
    writeAtomically(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(existsSync(join(d, '.lock'))).toBe(false);
  });

  it('holds the lock while a write runs, and a write inside a held lock does not wait for itself', () => {
    const d = dir();
    const file = join(d, 'node-id');
    const seen = withStateLock(d, () => {
      const text = readFileSync(join(d, '.lock'), 'utf8');
      writeAtomically(file, 'id\n');
      return text;
    });
    expect(seen).toBe(`${process.pid}\n`);
    expect(readFileSync(file, 'utf8')).toBe('id\n');
    expect(existsSync(join(d, '.lock'))).toBe(false);
  });
});
