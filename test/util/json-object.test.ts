import { describe, expect, it } from 'vitest';
import { jsonObject } from '../../src/util/json-object.js';

describe('jsonObject', () => {
  it('is the object a text holds, and nothing for what is not JSON or not an object', () => {
    expect(jsonObject('{"version":1,"phones":{}}')).toEqual({ version: 1, phones: {} });
    for (const text of ['', '{"version":', 'null', '[1,2]', '"text"', '42', 'true']) expect(jsonObject(text)).toBeUndefined();
  });
});
