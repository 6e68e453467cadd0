/**
 * Builds the PWA (remote/app) into dist/app, which the host serves: Preact, and the service
 * worker of src/sw.ts (Workbox precaching, so the app opens offline, and the push and
 * notification-click handlers) with the build's file list injected. The build fails when
 * the first load's JS is past its budget (scripts/first-load-budget.ts).
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { firstLoadBudget } from './scripts/first-load-budget.js';
import { plainLazyImports } from './scripts/plain-lazy-imports.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: here('../../dist/app'),
    emptyOutDir: true,
    target: 'es2022',
    // No modulepreload polyfill; the preload helper around each import() goes too
    // (scripts/plain-lazy-imports.ts): a lazy chunk's own imports load when it runs, from
    // the service worker's cache once installed.
    modulePreload: false,
    // The icons are small files: as data: URLs they would only grow the bundle.
    assetsInlineLimit: 0,
    rolldownOptions: {
      treeshake: {
        // Our own modules only define things, but for the few imported for their effect:
        // one whose exports no chunk uses is left out of that chunk. Else the #client and
        // #protocol barrels pull every module they re-export (what only a lazy screen
        // uses too) into the first load.
        moduleSideEffects: (id) =>
          id.includes('/node_modules/') || !/\/(protocol|pairing|remote)\//.test(id)
            ? undefined
            : /\.css$|\/(main\.tsx|zod-jitless\.ts)$/.test(id),
      },
      output: {
        // Everything the first load imports in one chunk (not split by what the lazy
        // screens share with it): one script to fetch, gzipped as a whole.
        codeSplitting: { groups: [{ name: 'app', tags: ['$initial'] }] },
      },
    },
  },
  plugins: [
    preact(),
    // Every import() a plain one: vite's preload helper weighed 0.7 KB gzip in the first load.
    plainLazyImports(),
    // Fails the build when the first load's JS is past its budget (55 KB gzip).
    firstLoadBudget(),
    VitePWA({
      // generateSW cannot add push handlers (only through importScripts): our own worker.
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      registerType: 'autoUpdate',
      // Registered from src/main.tsx through the virtual module: no inline script (CSP).
      injectRegister: false,
      includeAssets: ['icons/apple-touch-icon-180.png', 'icons/favicon.svg'],
      manifest: {
        name: 'Tether',
        short_name: 'Tether',
        description: 'Watch, approve and submit the AI agent runs of your own Mac.',
        start_url: '/#/runs',
        scope: '/',
        display: 'standalone',
        background_color: '#0f1115',
        theme_color: '#0f1115',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          {
            src: '/icons/icon-maskable-512.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
        ],
      },
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,png,svg,webmanifest}'],
      },
    }),
  ],
});
