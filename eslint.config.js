// ESLint 9 flat config. typescript-eslint's non-type-checked `recommended` set: the type-aware sets would
// build a full TypeScript program per tsconfig on every run, which on a small shared machine costs more than
// it finds; `npm run typecheck` already runs the compiler. react-hooks guards the dashboard's effects.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'web/dist/', 'client/dist/', 'test-artifacts/', '**/*.d.ts'] },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Unused names are the compiler's job (noUnusedLocals/noUnusedParameters); `_` marks a deliberate one.
      // prom-client calls a metric's collect() with the metric as `this`, so the owner goes in by another name.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Domain code never reaches up into the HTTP layer; only the composition root (app.ts, main.ts) wires it.
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/app.ts', 'src/main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/http/*', '**/http/**', './http', '../http'], message: 'Only src/http/, app.ts and main.ts may import from src/http/.' }] },
      ],
    },
  },
  {
    // The schemas are shared with the client SDK and the dashboard, which run in browsers: TypeBox and each other only.
    files: ['src/schemas/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!@sinclair/typebox(/|$)|\\./)', message: 'src/schemas/ imports only @sinclair/typebox and its own files.' }] },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'client/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
