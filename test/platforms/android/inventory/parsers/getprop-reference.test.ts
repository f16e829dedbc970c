// The getprop parser scans with indexOf since a CPU profile of the bench put
// it first among the agent's own costs. The regex parser it replaced is kept
// here as the reference: both must read every recorded dump, and random
// getprop-like text, to the same properties.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../../../support/property-runs.js';
import { parseGetprop } from '../../../../../src/platforms/android/inventory/parsers/getprop.js';
import { DECLARED_PROPS } from '../../../../../src/platforms/android/inventory/probes/registry.js';
import { fixture } from '../fixture.js';

const START = /^\[([^[\]\s]+)\]: \[(.*)$/;

function referenceParse(text: string): Record<string, string> {
  const props: Record<string, string> = Object.create(null) as Record<string, string>;
  let key: string | undefined;
  let parts: string[] = [];
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = raw.trimEnd();
    const start = START.exec(line);
    if (start) {
      key = undefined;
      parts = [];
      const [, name = '', rest = ''] = start;
      if (rest.endsWith(']')) props[name] = rest.slice(0, -1);
      else {
        key = name;
        parts = [rest];
      }
      continue;
    }
    if (key === undefined) continue;
    if (line.endsWith(']')) {
      parts.push(line.slice(0, -1));
      props[key] = parts.join('\n');
      key = undefined;
      parts = [];
    } else {
      parts.push(raw);
    }
  }
  return props;
}

const same = (text: string): void => {
  expect({ ...parseGetprop(text) }).toEqual({ ...referenceParse(text) });
};

/** With a set of the properties wanted: exactly those of them the reference reads, whatever the others do around them. */
const sameKept = (text: string, keep: ReadonlySet<string>): void => {
  const all = referenceParse(text);
  expect({ ...parseGetprop(text, keep) }).toEqual(Object.fromEntries(Object.entries(all).filter(([name]) => keep.has(name))));
};

const ROOT = fileURLToPath(new URL('./fixtures/', import.meta.url));
const dumps = ['getprop', 'getprop/collect', 'getprop/tv'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.txt'))
    .map((name) => [dir, name] as const),
);

describe('parseGetprop against the regex reference', () => {
  it.each(dumps)('%s/%s', (dir, name) => {
    same(fixture(dir, name));
  });

  it.each(dumps)('%s/%s, keeping only the properties the agent declares and a few it does not', (dir, name) => {
    sameKept(fixture(dir, name), new Set([...DECLARED_PROPS, 'ro.build.description', 'no.such.prop']));
  });

  it('random getprop-like text', () => {
    const token = fc.constantFrom(
      '[',
      ']',
      ': [',
      ']: [',
      ': ',
      'ro.a',
      'x y',
      '\n',
      '\r\n',
      ' ',
      '\t',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '[k]: [v]',
      '[k]: [',
      '',
      'z]',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (parts) => same(parts.join(''))),
      propertyRuns(5000, 5),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => same(text)),
      propertyRuns(2000, 5),
    );
    // Kept and skipped properties side by side, values over several lines among them.
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), fc.subarray(['k', 'ro.a', 'ro.ak', 'x', 'kk']), (parts, keep) => sameKept(parts.join(''), new Set(keep))),
      propertyRuns(5000, 5),
    );
  });
});
