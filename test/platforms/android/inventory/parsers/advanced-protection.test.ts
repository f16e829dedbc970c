// Advanced Protection from the probe's section (parsers/advanced-protection.ts names AOSP's source).
import { describe, expect, it } from 'vitest';
import { parseAdvancedProtection } from '../../../../../src/platforms/android/inventory/parsers/advanced-protection.js';

describe('advanced_protection_mode', () => {
  it('on Android 16: 1 on, 0 off, a row never written (null) off', () => {
    expect(parseAdvancedProtection('sdk:36+\n1\n')).toBe('on');
    expect(parseAdvancedProtection('sdk:36+\n0\n')).toBe('off');
    expect(parseAdvancedProtection('sdk:36+\nnull\n')).toBe('off');
  });

  it('an older phone, not asked: off (it has no Advanced Protection)', () => {
    expect(parseAdvancedProtection('sdk:older\n')).toBe('off');
  });

  it("the settings command's errors, a timeout's silence, values the service never writes: unknown", () => {
    for (const text of ['sdk:36+\n', "sdk:36+\ncmd: Can't find service: settings\n", 'sdk:36+\n2\n', 'sdk:36+\ntrue\n', 'sdk:36+\n1\n1\n', '1\n', ''])
      expect(parseAdvancedProtection(text), text).toBeUndefined();
  });
});
