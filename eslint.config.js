// Lint enforces the layering in docs/architecture.md: each folder imports only
// from the layers below it. Rules are regexes on the import specifier, so a
// violation names the folder it came from and the one it may not reach.
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { ALLOWED_LAYERS } from './scripts/lib/layers.mjs';
import { LONG_FILES_BY_DESIGN, MAX_FUNCTION_LINES, SIZE_RULES } from './scripts/lib/size-rules.mjs';

/** @param {string | string[]} regexes @param {string} message */
const restrict = (regexes, message) => ({
  'no-restricted-imports': ['error', { patterns: [regexes].flat().map((regex) => ({ regex, message })) }],
});

const layer = (files, regexes, message) => ({
  files,
  ignores: ['**/*.test.ts'],
  rules: restrict(regexes, message),
});

/**
 * The allow-list rule: an import that resolves into another folder of src/
 * (however many `../` it takes from a nested file) must name a layer the
 * importing folder lists; app/ is never imported from src/. A local rule
 * because no-restricted-imports sees only the specifier's text.
 */
const layerPlugin = {
  rules: {
    'allowed-layers': {
      meta: { type: 'problem', schema: [{ type: 'object' }] },
      create(context) {
        const allowed = context.options[0] ?? {};
        const file = context.filename;
        const srcRoot = path.join(import.meta.dirname, 'src') + path.sep;
        if (!file.startsWith(srcRoot)) return {};
        const from = file.slice(srcRoot.length).split(path.sep)[0];
        const may = allowed[from];
        if (!may) return {};
        const check = (node, specifier) => {
          if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
          const target = path.resolve(path.dirname(file), specifier);
          if (!target.startsWith(srcRoot)) {
            context.report({ node, message: `src/${from} may not import outside src/ (${specifier}).` });
            return;
          }
          const to = target.slice(srcRoot.length).split(path.sep)[0];
          if (to !== from && !may.includes(to))
            context.report({
              node,
              message: `src/${from} may import only ${may.map((name) => `src/${name}`).join(', ')} (and Node and packages), not src/${to}.`,
            });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
          ExportAllDeclaration: (node) => check(node, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
        };
      },
    },
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'e2e/screenshots/**', 'native/**/build/**', '.pipefill-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
    // Tool config files must default-export; project code must not.
    ignores: ['**/*.config.js', '**/*.config.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'No default exports (docs/architecture.md, "Naming").' }],
    },
  },
  // The size promise (scripts/lib/size-rules.mjs): source, not tests; the catalogue's length by design.
  {
    files: ['src/**/*.ts', 'app/**/*.{ts,tsx,cts}'],
    ignores: ['**/*.test.ts', 'src/test-support/**', ...LONG_FILES_BY_DESIGN],
    rules: SIZE_RULES,
  },
  { files: LONG_FILES_BY_DESIGN, rules: { 'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES }] } },
  layer(['src/model/**/*.ts'], '^(?!\\./)', 'src/model is pure: it imports only its own files (no Node, no packages, no other layer).'),
  layer(['src/platform/**/*.ts'], '^(?!\\./|node:)', 'src/platform holds small Node helpers: Node built-ins only, no other layer.'),
  layer(['src/advice/**/*.ts'], '^(?!\\./|\\.\\./model/)', 'src/advice may import only src/model.'),
  layer(['src/contract/**/*.ts'], '^(?!\\./|\\.\\./model/|\\.\\./advice/|zod$)', 'src/contract may import only src/model, src/advice and zod.'),
  // From here up, each layer names the project layers it may import (ALLOWED_LAYERS): anything else of
  // src/, or app/, fails lint, so a new upward or sideways import cannot land.
  { files: ['src/**/*.ts'], ignores: ['**/*.test.ts'], plugins: { layers: layerPlugin }, rules: { 'layers/allowed-layers': ['error', ALLOWED_LAYERS] } },
  layer(
    ['app/main/**/*.ts'],
    ['(^|/)app/renderer/|^\\.\\./renderer/', '(^|/)src/(cli|web)/'],
    'The Electron main process registers the contract; it does not import the page, the CLI or the web host.',
  ),
  // A sandboxed preload is CommonJS: `import x = require()` is how TypeScript writes that.
  { files: ['app/preload/**/*.cts'], rules: { '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }] } },
  layer(
    ['app/preload/**/*.cts'],
    ['^(?!electron$|\\.\\./\\.\\./src/contract/)'],
    'The preload exposes the contract transport: electron and src/contract types only.',
  ),
  {
    // The page runs in a browser: its globals, not Node's.
    files: ['app/renderer/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        URL: 'readonly',
        Blob: 'readonly',
        TextDecoder: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  layer(
    ['app/renderer/**/*.{ts,tsx}'],
    [
      // Packages: only the view libraries.
      '^(?!\\.|react$|react-dom|react/|chart\\.js)',
      // Project code: src/contract, src/presentation and src/model, nothing else of src/ ...
      '(^|/)src/(?!(contract|presentation|model)/)',
      // ... and nothing of the Electron main process or preload.
      '(^|/)app/(main|preload)/|^\\.\\./(main|preload)/',
    ],
    'The renderer imports only src/contract, src/presentation and src/model (docs/architecture.md, "Layers").',
  ),
  // The renderer's build config runs in Node, not in the page.
  { files: ['app/renderer/vite.config.ts'], rules: { 'no-restricted-imports': 'off' } },
  {
    files: ['scripts/**/*.mjs', 'bin/**/*.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', performance: 'readonly' } },
  },
);
