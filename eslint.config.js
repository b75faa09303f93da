// Lint enforces the layering in docs/architecture.md: each folder imports only
// from the layers below it. Rules are regexes on the import specifier, so a
// violation names the folder it came from and the one it may not reach.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** @param {string | string[]} regexes @param {string} message */
const restrict = (regexes, message) => ({
  'no-restricted-imports': ['error', { patterns: [regexes].flat().map((regex) => ({ regex, message })) }],
});

const layer = (files, regexes, message) => ({
  files,
  ignores: ['**/*.test.ts'],
  rules: restrict(regexes, message),
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'e2e/screenshots/**', 'native/**/build/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
    // Tool config files must default-export; project code must not.
    ignores: ['**/*.config.js', '**/*.config.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'No default exports (DESIGN.md naming).' }],
    },
  },
  layer(['src/model/**/*.ts'], '^(?!\\./)', 'src/model is pure: it imports only its own files (no Node, no packages, no other layer).'),
  layer(['src/platform/**/*.ts'], '^(?!\\./|node:)', 'src/platform holds small Node helpers: Node built-ins only, no other layer.'),
  layer(['src/advice/**/*.ts'], '^(?!\\./|\\.\\./model/)', 'src/advice may import only src/model.'),
  layer(['src/contract/**/*.ts'], '^(?!\\./|\\.\\./model/|\\.\\./advice/|zod$)', 'src/contract may import only src/model, src/advice and zod.'),
  layer(
    ['src/smb/**/*.ts', 'src/probe/**/*.ts', 'src/apply/**/*.ts', 'src/report/**/*.ts', 'src/lab/**/*.ts', 'src/store/**/*.ts'],
    '^\\.\\./(assess|cli|web)/|app/',
    'Service layers (smb, probe, apply, report, lab, store) may not import the orchestrator or the shells above them.',
  ),
  layer(['src/assess/**/*.ts', 'src/capacity/**/*.ts'], '^\\.\\./(cli|web)/|app/', 'The orchestrators (assess, capacity) may not import the CLI, the web host or the app.'),
  layer(['src/cli/**/*.ts', 'src/web/**/*.ts'], 'app/', 'The CLI and web host may not import the Electron app.'),
  layer(['app/main/**/*.ts'], ['(^|/)app/renderer/|^\\.\\./renderer/', '(^|/)src/(cli|web)/'], 'The Electron main process registers the contract; it does not import the page, the CLI or the web host.'),
  // A sandboxed preload is CommonJS: `import x = require()` is how TypeScript writes that.
  { files: ['app/preload/**/*.cts'], rules: { '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }] } },
  layer(['app/preload/**/*.cts'], ['^(?!electron$|\\.\\./\\.\\./src/contract/)'], 'The preload exposes the contract transport: electron and src/contract types only.'),
  {
    // The page runs in a browser: its globals, not Node's.
    files: ['app/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', URL: 'readonly', Blob: 'readonly', TextDecoder: 'readonly', setTimeout: 'readonly' } },
  },
  layer(
    ['app/renderer/**/*.{ts,tsx}'],
    [
      // Packages: only the view libraries.
      '^(?!\\.|react$|react-dom|react/|chart\\.js)',
      // Project code: src/contract and src/model, nothing else of src/ ...
      '(^|/)src/(?!(contract|model)/)',
      // ... and nothing of the Electron main process or preload.
      '(^|/)app/(main|preload)/|^\\.\\./(main|preload)/',
    ],
    'The renderer imports only src/contract types and src/model (DESIGN.md).',
  ),
  // The renderer's build config runs in Node, not in the page.
  { files: ['app/renderer/vite.config.ts'], rules: { 'no-restricted-imports': 'off' } },
  {
    files: ['scripts/**/*.mjs', 'bin/**/*.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', performance: 'readonly' } },
  },
);
