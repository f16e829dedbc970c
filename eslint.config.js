// ESLint with typescript-eslint's type-checked rules (docs/design/tooling.md).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'test/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // The config files sit outside tsconfig.json; the default project types them.
        projectService: { allowDefaultProject: ['eslint.config.js', 'vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A daemon must not let a switch over a union silently miss a new member.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A leading _ marks a name kept on purpose; a rest sibling is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Relaying a caught error (unknown) is what throw does too; only-throw-error allows it by default.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // The agent's job includes stripping control characters from device strings: those regexes mean them.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // Locale-aware calls page ICU's collation and format data into the daemon (2 to 6 MB of resident memory each,
      // measured) and order or print differently from host to host: src/util/compare.ts and plain formatting instead.
      'no-restricted-properties': [
        'error',
        ...['localeCompare', 'toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'].map((property) => ({
          property,
          message: 'locale-aware: pages in ICU data; see src/util/compare.ts',
        })),
      ],
      'no-restricted-globals': ['error', { name: 'Intl', message: 'pages in ICU data: keep the daemon locale-free' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read the agent's JSON output (JSON.parse gives any); a wrong guess fails the test itself.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests print fields of parsed log lines; one that is an object fails the test's own match anyway.
      '@typescript-eslint/no-base-to-string': 'off',
      // Fakes of async interfaces are shortest as async methods without await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.js'],
    // In JavaScript every value is any: the launcher would be all no-unsafe-* findings.
    extends: [tseslint.configs.disableTypeChecked],
  },
);
