// splitSections jumps from delimiter to delimiter with indexOf since a CPU
// profile of the bench put its line splitting second among the agent's own
// costs. The line-by-line version it replaced is kept here as the reference:
// both must cut every recorded profile's output, and random script-like
// text, into the same sections.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { marker, splitSections } from '../../../../src/platforms/android/inventory/script.js';

const TOKEN = '0123456789ab';

function referenceSplit(output: string, token: string): { sections: Map<string, string>; ended: boolean } {
  const prefix = `<<<DA:${token}:`;
  const sections = new Map<string, string>();
  let ended = false;
  let name: string | undefined;
  let body: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const at = line.endsWith('>>>') ? line.lastIndexOf(prefix) : -1;
    const found = at >= 0 ? line.slice(at + prefix.length, -3) : undefined;
    if (found === undefined || !/^[a-z0-9_]+$/.test(found)) {
      if (name !== undefined) body.push(line);
      continue;
    }
    if (at > 0 && name !== undefined) body.push(line.slice(0, at));
    if (name !== undefined && !sections.has(name)) sections.set(name, body.join('\n'));
    if (found === 'end') ended = true;
    name = found === 'end' ? undefined : found;
    body = [];
  }
  return { sections, ended };
}

const same = (text: string): void => {
  const fast = splitSections(text, TOKEN);
  const reference = referenceSplit(text, TOKEN);
  expect([...fast.sections]).toEqual([...reference.sections]);
  expect(fast.ended).toBe(reference.ended);
};

describe('splitSections against the line-by-line reference', () => {
  it('named cases', () => {
    const m = (n: string) => marker(n, TOKEN);
    for (const text of [
      '',
      m('a'),
      `${m('a')}\n`,
      `${m('a')}\nx\n${m('end')}`,
      `${m('a')}\r\nx\r\n\r\n${m('b')}\r\n${m('end')}\r\n`,
      `noise\n${m('a')}\n1\n2${m('b')}\n3\n${m('end')}\n`,
      `${m('a')}\nx${m('b')}${m('c')}\ny\n${m('end')}`,
      `${m('a')}\n${m('a')}\nsecond\n${m('end')}\n`,
      `${m('a')}\nx\r\r\n${m('B')}\n${m('end')}`,
      `${m('a')}\nx\r${m('b')}\r\n${m('end')}\r`,
      `${m('a')}>>>\n${m('end')}`,
      `${m('end')}\nafter\n${m('a')}\n1\n${m('end')}`,
    ])
      same(text);
  });

  it('random script-like text', () => {
    const token = fc.constantFrom(
      marker('a', TOKEN),
      marker('b', TOKEN),
      marker('end', TOKEN),
      marker('bad-name', TOKEN),
      marker('a', 'ffffffffffff'),
      `<<<DA:${TOKEN}:`,
      '>>>',
      '\n',
      '\r\n',
      '\r',
      'x',
      '[k]: [v]',
      ' ',
      '',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 80 }), (parts) => same(parts.join(''))),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => same(text)),
      { numRuns: 1000 },
    );
  });
});
