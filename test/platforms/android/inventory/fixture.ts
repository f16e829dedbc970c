// Reads a recorded device output from test/platforms/android/inventory/parsers/fixtures/.
// The sources of every file are listed in fixtures/SOURCES.md.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('./parsers/fixtures/', import.meta.url));

export function fixture(source: string, name: string): string {
  return readFileSync(`${ROOT}${source}/${name}`, 'utf8');
}
