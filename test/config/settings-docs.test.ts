import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/config/schema.js';

// Every setting of the schema has its row in the configuration reference
// (the support.* flags share one row).

const table = readFileSync(new URL('../../docs/reference/configuration.md', import.meta.url), 'utf8');
const rows = new Set([...table.matchAll(/^\| `([A-Za-z.*]+)`/gm)].map((m) => m[1]!));

describe('docs/reference/configuration.md', () => {
  it('has a row for every setting', () => {
    const missing = Object.keys(schema).filter((key) => !rows.has(key) && !(key.startsWith('support.') && rows.has('support.*')) && !(key === 'apiKeyFile' || key === 'logFormat'));
    expect(missing).toEqual([]);
  });
});
