import { describe, expect, it } from 'vitest';
import { missingOptional, type LockEntry } from '../../../tools/optional-deps/missing.js';

// What Debian 12's npm (on Node 18) left of package-lock.json: rolldown, and
// none of its bindings, whose engines want Node 20.19.
const lock: Record<string, LockEntry> = {
  '': { optionalDependencies: { fsevents: '2' } },
  'node_modules/rolldown': {
    optionalDependencies: {
      '@rolldown/binding-linux-x64-gnu': '1',
      '@rolldown/binding-linux-x64-musl': '1',
      '@rolldown/binding-linux-arm64-gnu': '1',
      '@rolldown/binding-darwin-arm64': '1',
    },
  },
  'node_modules/@rolldown/binding-linux-x64-gnu': { optional: true, os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'node_modules/@rolldown/binding-linux-x64-musl': { optional: true, os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'node_modules/@rolldown/binding-linux-arm64-gnu': { optional: true, os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'node_modules/@rolldown/binding-darwin-arm64': { optional: true, os: ['darwin'], cpu: ['arm64'] },
  'node_modules/fsevents': { optional: true, os: ['darwin'] },
  'node_modules/lightningcss': { optional: true, optionalDependencies: { 'lightningcss-linux-x64-gnu': '1' } },
  'node_modules/lightningcss-linux-x64-gnu': { optional: true, os: ['!win32'], cpu: ['x64'] },
};
const x64 = { platform: 'linux', arch: 'x64', libc: 'glibc' };

describe('missingOptional', () => {
  it("names the binding of this machine's os, cpu and libc that is not on disk while rolldown is", () => {
    const onDisk = new Set(['node_modules/rolldown']);
    expect(missingOptional(lock, (p) => onDisk.has(p), x64)).toEqual(['node_modules/@rolldown/binding-linux-x64-gnu']);
    expect(missingOptional(lock, (p) => onDisk.has(p), { ...x64, libc: 'musl' })).toEqual(['node_modules/@rolldown/binding-linux-x64-musl']);
    expect(missingOptional(lock, (p) => onDisk.has(p), { platform: 'linux', arch: 'arm64', libc: 'glibc' })).toEqual([
      'node_modules/@rolldown/binding-linux-arm64-gnu',
    ]);
  });

  it('names nothing once it is there, nor for a package that wants it and is not installed (npm ci --omit=dev)', () => {
    const all = new Set(['node_modules/rolldown', 'node_modules/@rolldown/binding-linux-x64-gnu']);
    expect(missingOptional(lock, (p) => all.has(p), x64)).toEqual([]);
    expect(missingOptional(lock, () => false, x64)).toEqual([]);
  });

  it('reads "!os" as all but that one', () => {
    const onDisk = new Set(['node_modules/lightningcss']);
    expect(missingOptional(lock, (p) => onDisk.has(p), x64)).toEqual(['node_modules/lightningcss-linux-x64-gnu']);
    expect(missingOptional(lock, (p) => onDisk.has(p), { platform: 'win32', arch: 'x64', libc: undefined })).toEqual([]);
  });
});
