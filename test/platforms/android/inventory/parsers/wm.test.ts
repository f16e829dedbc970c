import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWmDensity, parseWmSize } from '../../../../../src/platforms/android/inventory/parsers/wm.js';
import { fixture } from '../fixture.js';

describe('parseWmSize', () => {
  it('physical and override', () => {
    expect(parseWmSize(fixture('wm', 'size-override.txt'))).toEqual({
      physical: { width: 1080, height: 1920 },
      override: { width: 480, height: 1024 },
    });
  });

  it('skips vendor noise before the size (Redmi)', () => {
    expect(parseWmSize(fixture('wm', 'size-redmi-note1-noise.txt'))).toEqual({ physical: { width: 720, height: 1280 } });
  });

  it('garbage gives nothing', () => {
    expect(parseWmSize('/system/bin/sh: wm: not found')).toEqual({});
    fc.assert(fc.property(fc.string(), (text) => void parseWmSize(text)));
  });
});

describe('parseWmDensity', () => {
  it('physical and override density', () => {
    expect(parseWmDensity(fixture('wm', 'density-honor-override.txt'))).toEqual({ physical: 480, override: 320 });
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseWmDensity(text)));
  });
});
