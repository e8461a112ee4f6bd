// Flat config: @eslint/js and typescript-eslint recommended, syntax-only (no type information)
// so `npm run lint` stays a few seconds; `tsc --noEmit` does the type checking.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The globals of the Node that runs ESLint (process, Buffer, fetch, ...), for the plain .js/.mjs
// scripts; TypeScript files get no-undef from the compiler instead.
const nodeGlobals = Object.fromEntries(
  [...Object.getOwnPropertyNames(globalThis), 'require', 'module', '__filename', '__dirname'].map((name) => [
    name,
    'readonly',
  ]),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'migrations/', 'coverage/', 'tmp/', '.engage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: nodeGlobals,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `let handler; server = createServer(() => handler()); handler = ...` cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
);
