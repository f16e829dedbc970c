import { describe, expect, it } from 'vitest';
import { manSettings } from '../../packaging/man-settings.js';
import { loadDefaults } from '../../src/config/load.js';
import { schema } from '../../src/config/schema.js';

// The man page's SETTINGS section: every setting of the schema, with its
// variable and the package's default, in roff that does not break.

describe('man page settings section', () => {
  const roff = manSettings(loadDefaults());

  it('lists every setting of the schema with its variable', () => {
    for (const key of Object.keys(schema)) expect(roff).toContain(`.BR ${key} " ("`);
    expect(roff).toContain('.BR charge.highPercent " (" DEVICE_AGENT_CHARGE_HIGH_PERCENT )');
    expect(roff).toMatch(/^\.SH SETTINGS\n/);
  });

  it('no line starts with a dot or quote it did not mean; dashes and backslashes escaped', () => {
    const text = roff.split('\n').filter((l) => l && !/^\.(SH|TP|BR|IR|I|br) ?/.test(l));
    for (const line of text) expect(line).not.toMatch(/^['.]/);
    expect(roff).not.toMatch(/[^\\]-{2}/);
  });
});
