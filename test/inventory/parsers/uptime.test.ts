// Seconds since boot read from a recorded /proc/uptime (source in fixtures/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { parseUptime } from '../../../src/inventory/parsers/uptime.js';
import { fixture } from '../fixture.js';

describe('/proc/uptime, recorded', () => {
  const text = fixture('uptime', 'proc-uptime-goadb-8core.txt');

  it('whole seconds since boot, not the idle sum that is larger on a multi-core device', () => {
    // "52784.18 409860.90": up 52784 s (about 14.7 h); the idle figure is summed over the cores.
    expect(parseUptime(text)).toBe(52784);
  });

  it('the same line with the CR an adb pty adds', () => {
    expect(parseUptime(text.replace('\n', '\r\n'))).toBe(52784);
  });
});
