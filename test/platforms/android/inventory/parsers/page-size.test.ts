// The kernel's page size from `getconf PAGE_SIZE` (parsers/page-size.ts names the catalogue).
import { describe, expect, it } from 'vitest';
import { parsePageSize } from '../../../../../src/platforms/android/inventory/parsers/page-size.js';

describe('getconf PAGE_SIZE', () => {
  it("4 KB, as AOSP's page shows it, and a 16 KB or 64 KB kernel", () => {
    expect(parsePageSize('4096\n')).toBe(4096);
    expect(parsePageSize('16384\r\n')).toBe(16384);
    expect(parsePageSize('65536')).toBe(65536);
  });

  it("no getconf, toybox's own words, or a size no kernel runs: unknown", () => {
    for (const text of [
      '/system/bin/sh: getconf: inaccessible or not found\n',
      '/system/bin/sh: getconf: not found\n',
      "getconf: bad 'PAGE_SIZE'\n",
      'undefined\n',
      '',
      '8192\n',
      '4096\n4096\n',
      '4096 bytes\n',
    ])
      expect(parsePageSize(text), text).toBeUndefined();
  });
});
