// Flat config: @eslint/js and typescript-eslint recommended, syntax-only (no type information)
// so `npm run lint` stays a few seconds; `tsc --noEmit` does the type checking.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import path from 'node:path';

// The globals of the Node that runs ESLint (process, Buffer, fetch, ...), for the plain .js/.mjs
// scripts; TypeScript files get no-undef from the compiler instead.
const nodeGlobals = Object.fromEntries(
  [...Object.getOwnPropertyNames(globalThis), 'require', 'module', '__filename', '__dirname'].map((name) => [
    name,
    'readonly',
  ]),
);

/**
 * CONVENTIONS.md "Layers": contexts talk through service exports, never through each other's
 * stores. A context is a folder under src/identity, src/engage or src/platform, or a top-level
 * folder of src (directory, admin); its store is store.ts or any file under a store/ folder.
 * The composition files that bind every store (src/stores.ts, src/engage/stores.ts) are exempt.
 */
const COMPOSITION = new Set(['src/stores.ts', 'src/engage/stores.ts']);
function contextOf(file) {
  const parts = file.split('/');
  const i = parts.indexOf('src');
  if (i < 0) return undefined;
  const [top, sub] = parts.slice(i + 1);
  if (['identity', 'engage', 'platform'].includes(top) && sub && !sub.includes('.')) return `${top}/${sub}`;
  return top;
}
const isStore = (file) => /\/store(\.ts)?$/.test(file.replace(/\.ts$/, '')) || /\/store\//.test(file);
const ownStores = {
  meta: { type: 'problem', messages: { foreign: "{{target}} is the {{context}} context's store; use that context's service" } },
  create(context) {
    const file = path.relative(process.cwd(), context.filename);
    if (COMPOSITION.has(file)) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(process.cwd(), path.resolve(path.dirname(context.filename), spec));
      if (!isStore(target)) return;
      const owner = contextOf(target);
      if (owner && owner !== contextOf(file) && !owner.startsWith('platform/')) {
        context.report({ node, messageId: 'foreign', data: { target, context: owner } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

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
    plugins: { engage: { rules: { 'own-stores': ownStores } } },
    rules: {
      'engage/own-stores': 'error',
      // `let handler; server = createServer(() => handler()); handler = ...` cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
);
