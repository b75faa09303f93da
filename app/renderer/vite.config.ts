// The renderer's build: one page, its script and styles, into dist/renderer,
// served by the web mode and loaded by Electron from disk (relative paths).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  // React's automatic JSX runtime, through esbuild: no Babel plugin needed.
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // Chart.js and React make one bundle of ~500 KB; it loads from disk or loopback.
    chunkSizeWarningLimit: 1500,
    sourcemap: true,
    rollupOptions: {
      // zod's bundled regexes carry a /*#__PURE__*/ comment Rollup cannot place; it says so and drops it, harmlessly.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules/zod/')) return;
        warn(warning);
      },
    },
  },
});
