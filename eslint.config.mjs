// @ts-check
// ESLint checks code; prettier (prettier.config.mjs) decides layout, so eslint-config-prettier comes last
// and turns off every rule that would argue with it. typescript-eslint's rules are the non-type-checked
// set: no type information, so `npm run lint` stays a few seconds (tsc checks types in `npm run typecheck`).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Unused names are errors, except on purpose: a leading `_` marks a parameter a signature needs
 * (Nest hooks, interface methods), a caught error that is deliberately dropped, or a destructured
 * element skipped; the rest of `{ a, ...rest }` is how a key is left out of a copy.
 */
const unusedVars = [
  'error',
  {
    argsIgnorePattern: '^_',
    varsIgnorePattern: '^_',
    caughtErrorsIgnorePattern: '^_',
    destructuredArrayIgnorePattern: '^_',
    ignoreRestSiblings: true,
  },
];

export default defineConfig([
  // ESLint does not read .gitignore: what is built, installed or generated is listed here.
  globalIgnores([
    'dist/',
    'libs/dist/',
    'packs/',
    'coverage/',
    'test-output/',
    '.jest-cache/',
    'audit/',
    'test/conformance/node_modules/',
  ]),

  // An eslint-disable comment that no longer silences anything fails the lint: it would hide the next problem.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },

  js.configs.recommended,

  // TypeScript: src, libs, apps and test (the files tsconfig.json compiles).
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
    },
  },

  // Node scripts: the test harnesses, bench and conformance runners (ES modules).
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
    rules: { 'no-unused-vars': unusedVars },
  },

  // CommonJS config files at the root (jest.config.js): the package has no "type": "module"; and
  // CommonJS bench subjects (test/bench/*.cjs: an app as TypeScript compiles it for Node).
  {
    files: ['*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { 'no-unused-vars': unusedVars },
  },

  // Browser assets served as they are, with no build step (the admin dashboard's script): classic
  // scripts in plain ES2020, so syntax newer than that is a parse error here rather than in an
  // older browser.
  {
    files: ['libs/**/assets/**/*.js'],
    languageOptions: { sourceType: 'script', ecmaVersion: 2020, globals: globals.browser },
    rules: { 'no-unused-vars': unusedVars },
  },

  // The desk's MCP Apps views: module scripts inlined into each view's document (no build step).
  {
    files: ['src/**/assets/**/*.js'],
    languageOptions: { sourceType: 'module', ecmaVersion: 2022, globals: globals.browser },
    rules: { 'no-unused-vars': unusedVars },
  },

  prettier,
]);
