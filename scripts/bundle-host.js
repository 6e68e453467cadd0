#!/usr/bin/env node
// Bundles the built host (dist/host/cli/main.js, from tsc) into dist/host/cli/main.bundle.js
// and its lazy chunks, which bin/tether.js runs: one file instead of ~400 modules to
// resolve, read and compile cuts the host's cold start about threefold (docs/performance.md).
// The chunks sit next to main.js, at the same depth, so paths made from import.meta.url
// (the app's folder, bin/tether.js, package.json) stay the same. Native addons stay outside.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'rolldown';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const out = join(root, 'dist/host/cli');
const BUNDLE = /^(main\.bundle|bundle-.*)\.js(\.map)?$/;

for (const name of readdirSync(out)) {
  if (BUNDLE.test(name)) rmSync(join(out, name));
}
await build({
  input: join(out, 'main.js'),
  platform: 'node',
  // Addons load their binaries relative to their own package; ws's two are optional.
  external: ['better-sqlite3', 'sodium-native', 'bufferutil', 'utf-8-validate'],
  logLevel: 'warn',
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: 'main.bundle.js',
    chunkFileNames: 'bundle-[name]-[hash].js',
    sourcemap: true,
    charset: 'ascii',
    comments: { legal: true, annotation: false, jsdoc: false },
  },
});
