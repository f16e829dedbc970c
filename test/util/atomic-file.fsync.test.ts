import type * as Fs from 'node:fs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// The order of the calls that make a write survive a power loss: file data
// flushed, renamed, then the directory flushed (without the last, the new
// name may be lost with the power and the old file, or none, comes back).
const calls: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  return {
    ...fs,
    fsyncSync: (fd: number) => {
      calls.push(fs.fstatSync(fd).isDirectory() ? 'fsync dir' : 'fsync file');
      fs.fsyncSync(fd);
    },
    renameSync: (from: string, to: string) => {
      calls.push('rename');
      fs.renameSync(from, to);
    },
  };
});

// The unit tier shares a worker's module cache between files (isolate: false,
// vitest.config.ts): another file may have loaded atomic-file.ts with the real
// node:fs, so it is loaded afresh here, under the mock.
vi.resetModules();
const { writeAtomically } = await import('../../src/util/atomic-file.js');

describe('writeAtomically', () => {
  it('flushes the file, renames it, then flushes the directory', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'da-fsync-')), 'reported-devices.json');
    writeAtomically(file, 'x\n');
    expect(readFileSync(file, 'utf8')).toBe('x\n');
    expect(calls).toEqual(['fsync file', 'rename', 'fsync dir']);
  });
});
