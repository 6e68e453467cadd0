/**
 * Security review: a workspace's .gitignore is anyone's text, and find_files and
 * search_files match it on the host's event loop. A line repeating `**` as whole segments
 * made `ignore`'s regex backtrack for minutes per path (the host answered nothing
 * meanwhile, not even a cancel). The rules are read in a child process running the built
 * host (npm run build), so that a regression fails at the timeout instead of hanging the
 * test runner; what the rules ignore must not change.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const built = new URL('../../dist/host/tools/gitignore-rules.js', import.meta.url).pathname;
let temp: TempDir;

beforeAll(() => {
  temp = tempDir('tether-gitignore-globstar-');
});
afterAll(() => temp.remove());

/** What the rules of `text` say of each path, from a child that is killed after 20 s. */
function ignoredBy(text: string, paths: readonly string[]): boolean[] {
  const folder = path.join(temp.path, String(Math.random()).slice(2));
  mkdirSync(folder);
  writeFileSync(path.join(folder, '.gitignore'), text);
  const script =
    `import { isIgnored, readIgnoreLevel } from ${JSON.stringify(built)};\n` +
    `const folder = ${JSON.stringify(folder)};\n` +
    `const level = await readIgnoreLevel(folder, () => false);\n` +
    `const paths = ${JSON.stringify(paths)};\n` +
    `console.log(JSON.stringify(paths.map((p) => isIgnored([level], folder + '/' + p, false))));\n`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.signal, 'the rules took more than 20 s to match').toBeNull();
  expect(child.stderr).toBe('');
  return z.array(z.boolean()).parse(JSON.parse(child.stdout));
}

const deep = `a/${'b/'.repeat(40)}`;

describe('a .gitignore repeating ** as whole segments', () => {
  it('is matched in bounded time, as one ** would be', () => {
    const run = `a${'/**'.repeat(12)}/x\n!**/**/**/**/keep/x\n**/**/**/**/**/**/**/**/z\n`;
    expect(ignoredBy(run, [`${deep}x`, `${deep}y`, `${deep}keep/x`, `${deep}z`, 'x'])).toEqual([
      true,
      false,
      false,
      true,
      false,
    ]);
  }, 30_000);
});
