import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * Built into dist/ and served by the gateway at /dashboard/. The client comes from its sources
 * (its dist is built only for publishing). No inline script or style ends up in index.html, so
 * the gateway's Content-Security-Policy can forbid both.
 */
export default defineConfig({
  base: '/dashboard/',
  resolve: {
    alias: { '@mailroom/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every asset a file of its own, so nothing needs a data: URL the policy would have to allow.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
