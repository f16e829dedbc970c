import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flattenDefaults, manSettings } from '../../packaging/man-settings.js';
import { schema } from '../../src/config/schema.js';

// The man page's SETTINGS section: every setting of the schema, with its
// variable and the package's default, in roff that does not break.

describe('man page settings section', () => {
  const defaults = flattenDefaults(JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as Record<string, unknown>);
  const roff = manSettings(defaults);

  it('lists every setting of the schema with its variable', () => {
    for (const key of Object.keys(schema)) expect(roff).toContain(`.BR ${key} " ("`);
    expect(roff).toContain('.BR charge.highPercent " (" DEVICE_AGENT_CHARGE_HIGH_PERCENT )');
    expect(roff).toMatch(/^\.SH SETTINGS\n/);
  });

  it('no line starts with a dot or quote it did not mean; dashes and backslashes escaped', () => {
    const text = roff.split('\n').filter((l) => l && !/^\.(SH|TP|BR|IR|I|br) ?/.test(l));
    for (const line of text) expect(line).not.toMatch(/^['.]/);
    expect(roff).not.toMatch(/[^\\]-{2}/);
    expect(flattenDefaults({ a: { b: 1, c: [2] } })).toEqual(
      new Map<string, unknown>([
        ['a.b', 1],
        ['a.c', [2]],
      ]),
    );
  });
});
