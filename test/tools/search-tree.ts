// The tree find_files and search_files are tested on: every kind of file they must skip,
// each holding the word "needle", beside the files they must find.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { compileReadProtection } from '../../host/policy/testing.js';
import type { SearchToolOptions } from '../../host/tools/testing.js';
import type { Fixture } from './fixture.js';

/** Files holding "needle" that a search of the workspace must find, sorted. */
export const FOUND = ['keep.log', 'src/app.ts', 'src/deep/lib.ts', 'sub/important.tmp'];

export async function writeSearchTree(fx: Fixture): Promise<void> {
  await fx.write(
    'src/app.ts',
    'const needle = 1;\nexport function find() {\n  return needle;\n}\n',
  );
  await fx.write('src/deep/lib.ts', '// a needle here\r\n');
  await fx.write('src/empty.ts', '');
  await fx.write('README.md', '# Haystack\n');
  // Root rules: *.log and *.tmp ignored, keep.log taken back; sub/ takes important.tmp back.
  await fx.write('.gitignore', '*.log\n*.tmp\nignored-dir/\n!keep.log\n');
  await fx.write('debug.log', 'needle in an ignored log\n');
  await fx.write('keep.log', 'needle kept by a negation\n');
  await fx.write('ignored-dir/a.txt', 'needle in an ignored folder\n');
  await fx.write('sub/.gitignore', 'local.txt\n!important.tmp\n');
  await fx.write('sub/important.tmp', 'needle taken back by a nested negation\n');
  await fx.write('sub/local.txt', 'needle ignored by the nested rules\n');
  await fx.write('sub/other.tmp', 'needle still ignored by the root rules\n');
  await fx.write('.git/info/exclude', 'excluded.txt\n');
  await fx.write('excluded.txt', 'needle excluded by .git/info/exclude\n');
  await fx.write('.git/config', '[remote "origin"]\n  url = https://needle-token@example.com/x\n');
  await fx.write('node_modules/pkg/index.js', 'module.exports = "needle";\n');
  await fx.write('image.bin', Buffer.concat([Buffer.from([0x89, 0, 1, 2]), Buffer.from('needle')]));
  await fx.write('.env', 'TOKEN=needle\n');
  await fx.write('config/.env.local', 'TOKEN=needle\n');
  await fx.write('secrets/key.txt', 'needle in a folder the policy protects\n');
  await fx.write('big.txt', `${'x'.repeat(80)}\n`.repeat(30_000) + 'needle\n');
  await writeFile(path.join(fx.outside, 'outside.txt'), 'needle outside the workspace\n');
  await symlink('../outside', path.join(fx.workspace, 'link-out'));
  await symlink(path.join(fx.outside, 'outside.txt'), path.join(fx.workspace, 'file-link'));
  await mkdir(path.join(fx.workspace, 'loop'));
  await symlink('..', path.join(fx.workspace, 'loop', 'up'));
}

/** Tool options with the built-in protected paths and `secrets/**` from the policy. */
export function searchOptions(deadlineMs?: number): SearchToolOptions {
  return {
    protectedPaths: (workspace) => compileReadProtection(['secrets/**'], workspace, homedir()),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  };
}
