// A YAML parse error in words that quote none of the file (the web config holds bcrypt hashes, and a wrong path may be
// a key file): the line and column from the error's position, the words from its code. Pure.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { ErrorCode } from 'yaml';

// The package loads on demand (web-config.ts): asked only after its parser threw, this finds it loaded.
const require = createRequire(import.meta.url);

const WORDS: Partial<Record<ErrorCode, string>> = {
  BAD_INDENT: 'wrong indentation',
  TAB_AS_INDENT: 'a tab as indentation (YAML indents with spaces)',
  MISSING_CHAR: 'a closing quote or bracket missing',
  BLOCK_AS_IMPLICIT_KEY: 'a key and value on one line where one is expected (a space missing after a ":", or a value that needs quotes?)',
  MULTILINE_IMPLICIT_KEY: 'a key that runs over more than one line (a ":" missing?)',
  DUPLICATE_KEY: 'a key given twice',
  BAD_DQ_ESCAPE: 'a backslash escape YAML does not know in a double-quoted string (use single quotes for a literal backslash)',
  UNEXPECTED_TOKEN: 'something YAML does not expect there',
  BAD_SCALAR_START: 'a value that cannot start with that character (quote it)',
  BLOCK_IN_FLOW: 'a block collection inside [...] or {...}',
  MULTIPLE_DOCS: 'more than one YAML document (a "---" too many?)',
  BAD_ALIAS: 'an alias (*name) that names no anchor',
  KEY_OVER_1024_CHARS: 'a key longer than 1024 characters',
  RESOURCE_EXHAUSTION: 'too many aliases (the file expands beyond what a configuration needs)',
};

/** "line L, column C: what"; for an error that is not the yaml package's, no more than its kind. */
export function yamlProblem(err: unknown) {
  const { YAMLError } = require('yaml') as typeof Yaml;
  if (!(err instanceof YAMLError)) return 'it cannot be read as YAML';
  const words = WORDS[err.code] ?? `a YAML error (${err.code})`;
  const at = err.linePos?.[0];
  return at ? `line ${at.line}, column ${at.col}: ${words}` : words;
}
