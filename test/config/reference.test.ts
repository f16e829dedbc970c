import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDefaults } from '../../src/config/load.js';
import { configurationReference, REFERENCE_PATH, settingRows } from '../../src/config/reference.js';
import { schema, type Field } from '../../src/config/schema.js';
import { platformVariables } from '../../src/agent/platforms.js';

// docs/reference/configuration.md is rendered from the schema and the
// defaults: this keeps the page equal to what the agent reads.

const page = new URL(`../../${REFERENCE_PATH}`, import.meta.url);

describe('the settings reference', () => {
  it('is the one the schema renders', () => {
    const rendered = configurationReference(loadDefaults(), platformVariables);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(page, rendered);
    expect(readFileSync(page, 'utf8'), 'run: UPDATE_DOCS=1 npx vitest run test/config/reference.test.ts').toBe(rendered);
  });

  it('gives every setting its variable, its default or what unset means, and its values', () => {
    const rows = settingRows(loadDefaults());
    expect(rows.map((r) => r.key)).toEqual(Object.keys(schema));
    for (const row of rows) {
      expect(row.variable, row.key).toMatch(/^DEVICE_AGENT_[A-Z0-9_]+$/);
      expect(row.default, row.key).not.toBe('');
      expect(row.allowed, row.key).not.toBe('');
    }
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(byKey.get('shutdownTimeoutSeconds')).toMatchObject({ default: '`8`', allowed: '1 to 9' });
    expect(byKey.get('logLevel')?.allowed).toBe('`trace`, `debug`, `info`, `warn`, `error`, `fatal`, `silent`');
    expect(byKey.get('health.storageMinFreeMiB')).toMatchObject({
      variable: 'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB',
      formerVariable: 'DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MI_B',
    });
  });

  it('has its ranges from the schema: every whole number has both bounds, which validation applies', () => {
    const unbounded = Object.entries(schema).filter(([, f]) => {
      const field: Field = f;
      return field.type === 'integer' && (field.min === undefined || field.max === undefined);
    });
    expect(unbounded.map(([key]) => key)).toEqual([]);
  });

  it('says what unset means for each setting without a default', () => {
    const defaults = loadDefaults();
    const silent = Object.entries(schema).filter(([key, f]) => {
      const field: Field = f;
      const value = defaults.get(key);
      return (value === undefined || value === '') && field.unset === undefined && field.type !== 'string[]' && !key.startsWith('apiKey');
    });
    expect(silent.map(([key]) => key)).toEqual([]);
  });
});
