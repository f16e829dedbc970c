import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxError } from '../../src/config/json-syntax.js';

// Issue 42, 8b: a settings file that is not JSON is named by line, column and
// what is wrong, and none of its text is quoted: it may be the key file, or
// hold an unquoted apiKey.

describe('jsonSyntaxError', () => {
  const cases: Array<[string, string, number, number, RegExp]> = [
    ['the key file given as --config', 'Zq9Xk7secretapikey4471\n', 1, 1, /a letter where the file should start with '\{' \(is this the settings file\?\)/],
    ['an unquoted apiKey', '{\n  "username": "a@b.c",\n  "apiKey": Zq9Xk7secretapikey4471\n}\n', 3, 13, /text without double quotes where a value should be/],
    ['a single-quoted value', `{"apiKey": 'Zq9Xk7secret'}`, 1, 12, /a single quote: JSON strings take double quotes/],
    ['a trailing comma', '{"a": 1,\n}', 2, 1, /a comma before '\}'/],
    ['a missing comma', '{"a": 1\n "b": 2}', 2, 2, /'"' where ',' or '\}' should follow a value \(a comma missing\?\)/],
    ['an unquoted key', '{apiKey: "x"}', 1, 2, /a letter where a key in double quotes should be/],
    ['a string never closed', '{"apiKey": "Zq9Xk7secret', 1, 12, /a string that is never closed/],
    ['a line break in a string', '{"apiKey": "Zq9X\nk7"}', 1, 17, /a line break inside a string/],
    ['a Windows path', '{"caFile": "C:\\certs\\ca.pem"}', 1, 15, /a backslash escape JSON does not know/],
    ['an object cut off', '{"a": {"b": 1}', 1, 15, /the file ends before the closing '\}'/],
    ['a comment', '{\n  // the cloud\n  "a": 1}', 2, 3, /a comment \(JSON has none\) where a key/],
    ['text after the object', '{"a": 1} Zq9X', 1, 10, /a letter after the closing '\}'/],
    ['a malformed number', '{"a": 1.}', 1, 7, /a malformed number/],
    ['an empty file', ' \n', 2, 1, /the file is empty/],
  ];
  it.each(cases)('%s: line and column of the error, what is wrong, and none of the text', (_, text, line, column, problem) => {
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    const found = jsonSyntaxError(text);
    expect(found).toMatchObject({ line, column });
    expect(found.problem).toMatch(problem);
    expect(found.problem).not.toMatch(/Zq9X|secret|apiKey|certs/);
  });

  // Its words depend on no letter or digit of the file, only on what kind of
  // character stands where (and where JSON's grammar tells characters apart): a secret cannot reach them, whatever it spells.
  it('says the same of a secret as of any text of its shape, wherever the secret breaks the JSON', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_+/=.:-]{8,40}$/);
    const place = fc.constantFrom<(s: string) => string>(
      (s) => s,
      (s) => `${s}\n`,
      (s) => `{"apiKey": ${s}}`,
      (s) => `{"username": "u",\n "apiKey": ${s}\n}`,
      (s) => `{"apiKey": "${s}`,
      (s) => `{"apiKey": '${s}'}`,
      (s) => `{${s}: 1}`,
      (s) => `{"a": 1} ${s}`,
      (s) => `{"apiKey": "${s}" ${s}}`,
    );
    // Kept: what JSON's grammar tells apart (a leading 0, an exponent's e).
    const shape = (s: string) => s.replace(/[A-DF-Za-df-z]/g, 'x').replace(/[1-9]/g, '1');
    fc.assert(
      fc.property(secret, place, (s, wrap) => {
        fc.pre(!isJson(wrap(s)));
        expect(jsonSyntaxError(wrap(s))).toEqual(jsonSyntaxError(wrap(shape(s))));
      }),
      { numRuns: 2_000 },
    );
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
