import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

/**
 * The web console: a static single-page app built into dist/console and served by the API
 * process at /console/ (apps/api/src/console). Hashed file names under assets/ are cached
 * for a year; index.html is revalidated on every visit.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [preact()],
  // The API client is the TypeScript SDK, bundled from its sources (as the server's build and
  // the tests use it), so the console needs no separate SDK build first.
  resolve: { alias: [{ find: /^@gensvc\/sdk$/, replacement: fileURLToPath(new URL('../../packages/sdk/src/index.ts', import.meta.url)) }] },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000', '/authorize': 'http://127.0.0.1:3000', '/token': 'http://127.0.0.1:3000', '/revoke': 'http://127.0.0.1:3000' } },
});
