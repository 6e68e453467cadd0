import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolInput } from '../../host/tools/index.js';
import { createFindFilesTool } from '../../host/tools/testing.js';
import type { FindFilesInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';
import { searchOptions, writeSearchTree } from './search-tree.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  await writeSearchTree(fx);
});
afterEach(() => fx.remove());

const tool = createFindFilesTool(searchOptions());
const find = (input: FindFilesInput) => tool.execute(input, fx.context());
const pathsOf = async (input: FindFilesInput) =>
  (await find(input)).content
    .split('\n')
    .filter((line) => !/^(find_files|more|skipped):? /.test(line));

describe('find_files over a real tree', () => {
  it('lists the files it may, sorted, and says what it skipped', async () => {
    const result = await find({ glob: '**' });
    expect(result.content.split('\n')).toEqual([
      'find_files "**" in .: 10 files match (10 files in 6 folders looked at)',
      '.gitignore',
      'README.md',
      'big.txt',
      'image.bin',
      'keep.log',
      'src/app.ts',
      'src/deep/lib.ts',
      'src/empty.ts',
      'sub/.gitignore',
      'sub/important.tmp',
      'skipped: 5 ignored by .gitignore, 2 in noisy folders not entered (.git, node_modules; ' +
        'name one as path to search it), 3 protected, 3 symlinks (never followed)',
    ]);
    expect(result.data).toMatchObject({ matches: 10, returned: 10, more: 0, incomplete: null });
  });

  it('matches a glob without / against names and one with / against paths below path', async () => {
    expect(await pathsOf({ glob: '*.ts' })).toEqual([
      'src/app.ts',
      'src/deep/lib.ts',
      'src/empty.ts',
    ]);
    expect(await pathsOf({ glob: 'deep/*.ts', path: 'src' })).toEqual(['src/deep/lib.ts']);
    expect(await pathsOf({ glob: 'src/*.ts' })).toEqual(['src/app.ts', 'src/empty.ts']);
    expect(await pathsOf({ glob: '*.{log,tmp}' })).toEqual(['keep.log', 'sub/important.tmp']);
    expect(await pathsOf({ glob: '*.js', path: 'node_modules' })).toEqual([
      'node_modules/pkg/index.js',
    ]);
  });

  it('never lists protected files, Git data or files behind a symlink', async () => {
    expect(await pathsOf({ glob: '*.env*' })).toEqual([]);
    expect(await pathsOf({ glob: '*.txt' })).toEqual(['big.txt']);
    expect(await pathsOf({ glob: 'config' })).toEqual([]);
    for (const [where, code] of [
      ['config/.env.local', 'permission_denied'],
      ['.git', 'permission_denied'],
      ['link-out', 'path_outside_workspace'],
    ] as const) {
      expect((await find({ glob: '**', path: where })).error?.code).toBe(code);
    }
  });

  it('says how many more files match past maxResults', async () => {
    const result = await find({ glob: '*.ts', maxResults: 2 });
    expect(result.content.split('\n').slice(0, 4)).toEqual([
      'find_files "*.ts" in .: 3 files match (10 files in 6 folders looked at)',
      'src/app.ts',
      'src/deep/lib.ts',
      'more: 1 more file not shown; pass maxResults (up to 2000) or narrow path/glob',
    ]);
  });

  it('rejects a glob that climbs out of path, and unknown fields', () => {
    const parse = (input: unknown) => parseToolInput(tool, JSON.stringify(input));
    expect(parse({ glob: '../*.ts' })).toEqual({
      ok: false,
      message:
        'invalid input for find_files: glob: a glob is matched against paths below path: write it without a leading / or .., and set path instead',
    });
    expect(parse({ glob: '/etc/*' })).toMatchObject({ ok: false });
    expect(parse({})).toMatchObject({ ok: false });
    expect(parse({ glob: '*', maxResults: 2001 })).toMatchObject({ ok: false });
    expect(parse({ glob: '*', type: 'file' })).toMatchObject({ ok: false });
  });
});
