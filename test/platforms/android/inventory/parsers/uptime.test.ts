// Seconds since boot read from a recorded /proc/uptime (source in fixtures/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { parseUptimeSeconds } from '../../../../../src/platforms/android/inventory/parsers/uptime.js';
import { fixture } from '../fixture.js';

describe('/proc/uptime, recorded', () => {
  const text = fixture('uptime', 'proc-uptime-goadb-8core.txt');

  it('seconds since boot, not the idle sum that is larger on a multi-core device', () => {
    // "52784.18 409860.90": up 52784 s (about 14.7 h); the idle figure is summed over the cores.
    expect(parseUptimeSeconds(text)).toBe(52784.18);
  });

  it('the same line with the CR an adb pty adds', () => {
    expect(parseUptimeSeconds(text.replace('\n', '\r\n'))).toBe(52784.18);
  });
});
