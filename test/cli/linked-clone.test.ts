/**
 * Issue 24: `npm install -g .` from a clone links the folder as it is, with nothing
 * installed or built. The `tether` it puts on PATH says what to run, and where; it used to
 * say `npm run build`, which fails in a clone without its dependencies.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const repo = new URL('../../', import.meta.url);

it('a clone installed with npm install -g before npm install names the commands that build it', () => {
  using dir = tempDir('tether-linked-');
  const clone = join(dir.path, 'clone');
  mkdirSync(join(clone, 'bin'), { recursive: true });
  copyFileSync(new URL('bin/tether.js', repo), join(clone, 'bin', 'tether.js'));
  copyFileSync(new URL('package.json', repo), join(clone, 'package.json'));
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: dir.path,
    npm_config_prefix: join(dir.path, 'global'),
  };
  const install = spawnSync('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '.'], {
    cwd: clone,
    env,
    encoding: 'utf8',
  });
  expect(install.status, install.stderr).toBe(0);
  const tether = join(dir.path, 'global', 'bin', 'tether');

  const fresh = spawnSync(tether, ['doctor'], { env, encoding: 'utf8' });
  expect(fresh.status).toBe(1);
  expect(fresh.stderr).toBe(
    `tether: not built yet; run: cd '${clone}' && npm install && npm run build\n`,
  );

  mkdirSync(join(clone, 'node_modules'));
  const installed = spawnSync(tether, ['doctor'], { env, encoding: 'utf8' });
  expect(installed.status).toBe(1);
  expect(installed.stderr).toBe(`tether: not built yet; run: cd '${clone}' && npm run build\n`);
});
