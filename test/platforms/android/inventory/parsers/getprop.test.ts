import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstProp, parseGetprop } from '../../../../../src/platforms/android/inventory/parsers/getprop.js';
import { fixture } from '../fixture.js';

describe('parseGetprop', () => {
  it('reads every property of a Samsung Android 16 dump', () => {
    const text = fixture('getprop', 'samsung-sm-s936b-android16.txt');
    const props = parseGetprop(text);
    expect(props['ro.product.model']).toBe('SM-S936B');
    expect(props['ro.build.version.release']).toBe('16');
    expect(props['ro.serialno']).toBe('R5CY743GDFY');
    // Every line that opens a property opens exactly one key.
    const opened = text.split('\n').filter((line) => line.startsWith('[')).length;
    expect(Object.keys(props)).toHaveLength(opened);
  });

  it('keeps a multi-line value whole', () => {
    const props = parseGetprop(fixture('getprop', 'samsung-sm-s936b-android16.txt'));
    expect(props['persist.sys.boot.reason.history']).toBe('reboot,1784638255\nreboot,userrequested,1784637108\nreboot,lpm,1784545284');
  });

  it('keeps empty values as empty strings', () => {
    const props = parseGetprop(fixture('getprop', 'emulator-sdk-x86_64-android6.txt'));
    expect(props['ro.serialno']).toBe('');
    expect(props['ro.build.date']).toBe('Thu Jul  7 15:55:30 UTC 2016');
  });

  it('drops the \\r of a pty (Android before 7)', () => {
    const props = parseGetprop('[ro.product.model]: [Nexus 5]\r\n[ro.build.version.sdk]: [23]\r\n');
    expect(props).toEqual({ 'ro.product.model': 'Nexus 5', 'ro.build.version.sdk': '23' });
  });

  it('drops an unterminated value when the next property starts (invented garbage)', () => {
    const props = parseGetprop('[a.b]: [never closed\n[c.d]: [ok]\n[e.f]: [cut');
    expect({ ...props }).toEqual({ 'c.d': 'ok' });
  });

  it('treats __proto__ as a plain key', () => {
    const props = parseGetprop('[__proto__]: [x]\n');
    expect(props['__proto__']).toBe('x');
    expect(Object.getPrototypeOf(props)).toBeNull();
  });

  it('never throws and yields only strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const props = parseGetprop(text);
        for (const value of Object.values(props)) expect(typeof value).toBe('string');
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom('[', ']', ': ', '\n', '\r', 'a', '.', ' ')), (parts) => {
        parseGetprop(parts.join(''));
      }),
    );
  });
});

describe('firstProp', () => {
  it('skips absent and blank values', () => {
    expect(firstProp({ a: ' ', b: 'x' }, ['z', 'a', 'b'])).toBe('x');
    expect(firstProp({}, ['a'])).toBeUndefined();
  });
});
