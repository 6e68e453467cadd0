/**
 * scripts/build-changed.js (`npm start`, `npm run demo`): the PWA is rebuilt only when a
 * source it bundles is newer than dist/app, judged on a tree of its own (`--root`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const script = new URL('../../scripts/build-changed.js', import.meta.url).pathname;

function decide(root: string): string {
  const result = spawnSync(process.execPath, [script, '--dry-run', '--root', root], {
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  return result.stderr;
}

function write(path: string, secondsAgo: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x');
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(path, at, at);
}

it('rebuilds the app only when one of its sources is newer than dist/app', () => {
  using tree = tempDir('tether-build-');
  const source = join(tree.path, 'remote', 'app', 'src', 'main.tsx');
  const client = join(tree.path, 'remote', 'client', 'channel.ts');
  const built = join(tree.path, 'dist', 'app', 'index.html');
  write(source, 300);
  write(client, 300);
  expect(decide(tree.path)).toBe(
    'build: tsc --incremental; app: rebuild, no dist/app/index.html yet\n',
  );

  write(built, 100);
  expect(decide(tree.path)).toBe('build: tsc --incremental; app: up to date\n');

  write(client, 10);
  expect(decide(tree.path)).toBe(
    'build: tsc --incremental; app: rebuild, remote/client/channel.ts changed\n',
  );
  rmSync(client);
  write(join(tree.path, 'remote', 'app', 'node_modules', 'dep.js'), 0);
  expect(decide(tree.path)).toBe('build: tsc --incremental; app: up to date\n');
});
