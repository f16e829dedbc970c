import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMeminfo } from '../../src/util/meminfo.js';

// Recorded /proc/meminfo outputs; their sources are in fixtures/SOURCES.md.
function fixture(folder: string, name: string): string {
  return readFileSync(new URL(`./fixtures/${folder}/${name}`, import.meta.url), 'utf8');
}

describe('parseMeminfo', () => {
  it('uses MemAvailable where the kernel has it', () => {
    expect(parseMeminfo(fixture('meminfo', 'linux-with-memavailable.txt'))).toEqual({
      total: 1019732 * 1024,
      used: (1019732 - 710280) * 1024,
    });
  });

  it('estimates available as MemFree + Buffers + Cached on old kernels', () => {
    expect(parseMeminfo(fixture('meminfo', 'android-highmem-no-memavailable.txt'))).toEqual({
      total: 995092 * 1024,
      used: (995092 - (412324 + 67372 + 218692)) * 1024,
    });
  });

  it('no MemTotal: unknown', () => {
    expect(parseMeminfo('cat: /proc/meminfo: Permission denied')).toBeUndefined();
  });

  it('never throws and used never exceeds total', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('MemTotal', 'MemFree', 'MemAvailable', 'Cached', 'Buffers'), fc.nat())), (pairs) => {
        const mem = parseMeminfo(pairs.map(([k, v]) => `${k}: ${v} kB`).join('\n'));
        if (mem) {
          expect(mem.used).toBeGreaterThanOrEqual(0);
          expect(mem.used).toBeLessThanOrEqual(mem.total);
        }
      }),
    );
    fc.assert(fc.property(fc.string(), (text) => void parseMeminfo(text)));
  });
});
