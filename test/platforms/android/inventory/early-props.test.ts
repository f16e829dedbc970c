import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EarlyProps } from '../../../../src/platforms/android/inventory/early-props.js';
import { marker, splitSections } from '../../../../src/platforms/android/inventory/script.js';

// The property dump of a running inventory, the moment its section is whole
// (issue 42): not before the next delimiter, once, and across chunk cuts
// that split a character.

const output = (dump: string) => `${marker('props')}\n${dump}\n${marker('imei')}\n`;

describe('EarlyProps', () => {
  it('gives the dump once the next delimiter has arrived, not before, and only once', () => {
    const text = output('[ro.serialno]: [FA69P0301911]\n[ro.product.model]: [Pixel]');
    const watch = new EarlyProps();
    const cut = text.indexOf(marker('imei')) + 5;
    expect(watch.push(Buffer.from(text.slice(0, cut)))).toBeUndefined();
    expect(watch.push(Buffer.from(text.slice(cut)))).toBe('[ro.serialno]: [FA69P0301911]\n[ro.product.model]: [Pixel]');
    expect(watch.push(Buffer.from(`dumpsys output\n${marker('sim_state')}\n`))).toBeUndefined();
  });

  it('keeps a character whose bytes two chunks split', () => {
    const bytes = Buffer.from(output('[ro.product.model]: [Téléphone]'));
    const at = bytes.indexOf(Buffer.from('é')) + 1;
    const watch = new EarlyProps();
    expect(watch.push(bytes.subarray(0, at))).toBeUndefined();
    expect(watch.push(bytes.subarray(at))).toBe('[ro.product.model]: [Téléphone]');
  });

  it('gives nothing while the script has not reached the dump, nor for a script without one', () => {
    const watch = new EarlyProps();
    expect(watch.push(Buffer.from(`${marker('battery')}\nlevel: 80\n${marker('uptime')}\n1.0 2.0\n`))).toBeUndefined();
  });

  it('property: gives the dump at the chunk where cutting all that arrived into sections first finds it, whatever the chunks', () => {
    // Lines from a small pool that holds the hard cases: delimiters of the dump and of others, one
    // that is not (a bad name, another token), two on a line, \r\n line ends, a line ending in >>>.
    const line = fc.constantFrom(
      marker('props'),
      marker('imei'),
      marker('end'),
      `${marker('uptime')}\r`,
      marker('Bad Name'),
      marker('props', '0123456789ab'),
      `${marker('battery')} ${marker('df')}`,
      `x${marker('id')}`,
      '[ro.serialno]: [FA69P0301911]',
      '[ro.product.model]: [Téléphone]',
      'text >>>',
      '<<<DA:',
      '',
    );
    const text = fc.array(line, { maxLength: 8 }).chain((lines) => fc.tuple(fc.constant(lines.join('\n')), fc.boolean()));
    fc.assert(
      fc.property(
        text.chain(([body, newline]) => {
          const bytes = Buffer.from(newline ? `${body}\n` : body);
          return fc.tuple(fc.constant(bytes), fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 12 }));
        }),
        ([bytes, cuts]) => {
          const at = [0, ...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length];
          const watch = new EarlyProps();
          let whole = Buffer.alloc(0);
          let given = false;
          for (let i = 1; i < at.length; i++) {
            const chunk = bytes.subarray(at[i - 1], at[i]);
            whole = Buffer.concat([whole, chunk]);
            // The reference: every chunk, all that arrived cut into sections (characters split by a cut left out).
            const expected: string | undefined = given ? undefined : splitSections(whole.toString('utf8').replace(/\uFFFD+$/, '')).sections.get('props');
            given ||= expected !== undefined;
            expect(watch.push(chunk)).toBe(expected);
          }
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
