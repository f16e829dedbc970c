import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/cli/table.js';
import type { DeviceRow } from '../../src/status/device-rows.js';

// Issue 42, 8a: the widths of the columns were Math.max(...) over every row,
// one argument a row; a list as long as adb (or a network of phones) makes it
// overflowed the stack.

const row = (i: number): DeviceRow => ({
  udid: `U${i}`,
  serial: `S${i}`,
  state: 'device',
  status: 'AVAILABLE',
  platform: 'Android',
  model: 'Pixel',
  version: '14',
  up: true,
  problems: [],
});

describe('formatTable of a very long list', () => {
  it('prints 200,000 rows, padded to the widest cell', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => row(i));
    const lines = formatTable(rows).trimEnd().split('\n');
    expect(lines).toHaveLength(200_001);
    // The widest serial (S199999) sets its column: the first row's serial is padded to it.
    expect(lines[1]).toMatch(/^S0 {6}/);
  });
});
