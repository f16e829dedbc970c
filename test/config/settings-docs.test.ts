import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REFERENCE_PATH } from '../../src/config/reference.js';
import { envName, schema } from '../../src/config/schema.js';

// Every setting has its row, with its variable, in the configuration
// reference (generated; test/config/reference.test.ts keeps it current).

const reference = readFileSync(new URL(`../../${REFERENCE_PATH}`, import.meta.url), 'utf8');

describe('docs/reference/configuration.md', () => {
  it('has a row for every setting, naming its variable', () => {
    const rows = new Map([...reference.matchAll(/^\| `([A-Za-z.]+)` \| `(DEVICE_AGENT_[A-Z0-9_]+)` \|/gm)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(schema).filter((key) => rows.get(key) !== envName(key))).toEqual([]);
  });
});
