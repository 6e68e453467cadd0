#!/usr/bin/env node
// `npm start` and `npm run demo`: build only what changed since the last build. tsc runs
// incrementally (its state in dist/.tsbuildinfo); the PWA is rebuilt by vite only when a
// source it bundles is newer than dist/app/index.html. `npm run build` still builds all.
// `--dry-run` says what it would build and builds nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const rootFlag = process.argv.indexOf('--root');
// `--root DIR` (with --dry-run, for its test): judge another tree.
const root =
  rootFlag === -1
    ? resolve(dirname(new URL(import.meta.url).pathname), '..')
    : resolve(process.argv[rootFlag + 1] ?? '.');
/** What the app bundles, and what changes its build. */
const APP_SOURCES = ['remote/app', 'remote/client', 'protocol', 'pairing', 'package-lock.json'];
const APP_OUTPUT = 'dist/app/index.html';
const BUILD_INFO = 'dist/.tsbuildinfo';

/** The newest file under `paths` (folders walked, node_modules and dist skipped). */
function newestFile(paths, skip = () => false) {
  let newest = { path: undefined, mtimeMs: 0 };
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) {
        if (name !== 'node_modules' && name !== 'dist') visit(join(path, name));
      }
    } else if (stat.mtimeMs > newest.mtimeMs && !skip(path)) {
      newest = { path, mtimeMs: stat.mtimeMs };
    }
  };
  for (const path of paths) visit(path);
  return newest;
}

/** Why the app must be rebuilt (a newer source, or no build yet), or null when it is current. */
function appRebuildReason(sources, output) {
  if (!existsSync(output)) return `no ${output} yet`;
  const built = statSync(output).mtimeMs;
  const newest = newestFile(sources);
  return newest.mtimeMs > built ? `${newest.path} changed` : null;
}

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const reason = appRebuildReason(
  APP_SOURCES.map((path) => join(root, path)),
  join(root, APP_OUTPUT),
);
const app = reason === null ? 'up to date' : `rebuild, ${reason.replace(`${root}/`, '')}`;
process.stderr.write(`build: tsc --incremental; app: ${app}\n`);
if (process.argv.includes('--dry-run')) process.exit(0);
// tsc trusts its build info: without the output it would skip emitting what is gone.
if (!existsSync(join(root, 'dist/host/cli/main.js'))) {
  rmSync(join(root, BUILD_INFO), { force: true });
}
run([
  join(root, 'node_modules/typescript/bin/tsc'),
  '-p',
  'tsconfig.build.json',
  '--incremental',
  '--tsBuildInfoFile',
  BUILD_INFO,
]);
if (reason !== null) {
  run([
    join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    'remote/app/vite.config.ts',
  ]);
}
// The host's bundle (scripts/bundle-host.js), when tsc wrote anything newer than it.
const HOST_BUNDLE = join(root, 'dist/host/cli/main.bundle.js');
const isBundle = (path) => /\/(main\.bundle|bundle-[^/]*)\.js(\.map)?$/.test(path);
const hostBuilt = newestFile(
  ['host', 'common', 'pairing', 'protocol'].map((path) => join(root, 'dist', path)),
  isBundle,
);
if (!existsSync(HOST_BUNDLE) || hostBuilt.mtimeMs > statSync(HOST_BUNDLE).mtimeMs) {
  run([join(root, 'scripts/bundle-host.js')]);
}
