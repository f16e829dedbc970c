import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a state file atomically (temporary file, fsync, rename): a crash
 * mid-write leaves the previous content. Throws what the file system said.
 */
export function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o750 });
  const fd = openSync(tmp, 'w', 0o640);
  try {
    // writeFileSync loops over short writes; a bare writeSync on a full
    // disk writes part of the data without an error, and the rename
    // below would then replace a good file with a cut one.
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
