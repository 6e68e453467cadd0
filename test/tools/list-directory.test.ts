import { execFile } from 'node:child_process';
import { chmod, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDirectoryTool } from '../../host/tools/testing.js';
import type { ListDirectoryInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  await fx.write('README.md', '# Project\n');
  await fx.write('src/index.ts', 'export {};\n');
  await fx.write('src/lib/util.ts', 'export const x = 1;\n');
  await fx.write('src/lib/deep/hidden.ts', '');
  for (const name of ['a', 'b', 'c']) await fx.write(`node_modules/${name}/index.js`, '');
  await fx.write('.git/HEAD', 'ref: refs/heads/main\n');
  await fx.write('.git/config', '');
  await mkdir(path.join(fx.workspace, 'empty'));
  await symlink('../outside', path.join(fx.workspace, 'link'));
});
afterEach(() => fx.remove());

const list = (input: ListDirectoryInput, signal?: AbortSignal) =>
  listDirectoryTool.execute(input, fx.context(signal));

describe('list_directory trees', () => {
  it('lists one level sorted, directories with /, sizes, symlinks and noisy folders', async () => {
    const result = await list({ path: '.', depth: 1 });
    expect(result.content).toBe(
      [
        './ (depth 1, 6 entries)',
        '  .git/ (2 entries, not listed)',
        '  README.md (10 B)',
        '  empty/',
        '  link -> ../outside',
        '  node_modules/ (3 entries, not listed)',
        '  src/',
      ].join('\n'),
    );
    expect(result.summary).toBe('listed 6 entries in . (depth 1)');
  });

  it('lists two levels by default, marking empty directories', async () => {
    const result = await list({ path: '.' });
    expect(result.content).toBe(
      [
        './ (depth 2, 8 entries)',
        '  .git/ (2 entries, not listed)',
        '  README.md (10 B)',
        '  empty/ (empty)',
        '  link -> ../outside',
        '  node_modules/ (3 entries, not listed)',
        '  src/',
        '    index.ts (11 B)',
        '    lib/',
      ].join('\n'),
    );
  });

  it('lists three levels, with structured entries relative to the workspace', async () => {
    const result = await list({ path: 'src', depth: 3 });
    expect(result.content).toBe(
      [
        'src/ (depth 3, 5 entries)',
        '  index.ts (11 B)',
        '  lib/',
        '    deep/',
        '      hidden.ts (0 B)',
        '    util.ts (20 B)',
      ].join('\n'),
    );
    expect(result.data).toEqual({
      path: 'src',
      depth: 3,
      listed: 5,
      omitted: 0,
      unreadDirectories: 0,
      truncated: false,
      entries: [
        { path: 'src/index.ts', type: 'file', size: 11 },
        { path: 'src/lib', type: 'directory', entries: 2 },
        { path: 'src/lib/deep', type: 'directory', entries: 1 },
        { path: 'src/lib/deep/hidden.ts', type: 'file', size: 0 },
        { path: 'src/lib/util.ts', type: 'file', size: 20 },
      ],
    });
  });

  it('never follows a symlink, and reports its target as written', async () => {
    const result = await list({ path: '.', depth: 3 });
    expect(result.content).not.toContain('secret.txt');
    expect(result.data?.entries).toContainEqual({
      path: 'link',
      type: 'symlink',
      target: '../outside',
    });
  });

  it('lists a noisy folder when asked for it by path', async () => {
    const result = await list({ path: 'node_modules', depth: 1 });
    expect(result.content).toBe('node_modules/ (depth 1, 3 entries)\n  a/\n  b/\n  c/');
  });

  it('marks entries that are neither files nor directories, and quotes odd names', async () => {
    await promisify(execFile)('mkfifo', [path.join(fx.workspace, 'empty/pipe')]);
    await fx.write('empty/two\nlines', '');
    const result = await list({ path: 'empty', depth: 1 });
    expect(result.content).toBe(
      'empty/ (depth 1, 2 entries)\n  pipe (not a file or directory)\n  "two\\nlines" (0 B)',
    );
  });
});

describe('list_directory entry cap', () => {
  it('lists 500 entries of a large directory and counts the rest', async () => {
    await Promise.all(
      Array.from({ length: 600 }, (_, i) => fx.write(`many/f${String(i).padStart(3, '0')}`, '')),
    );
    const result = await list({ path: 'many' });
    const lines = result.content.split('\n');
    expect(lines).toHaveLength(502);
    expect(lines[500]).toBe('  f499 (0 B)');
    expect(lines[501]).toBe(
      'entry cap of 500 reached: 100 entries not listed, 0 directories not read; ' +
        'list a subdirectory to see more',
    );
    expect(result.summary).toBe('listed 500 entries in many (depth 2, cut at the entry cap)');
    expect(result.data).toMatchObject({ listed: 500, omitted: 100, truncated: true });
  });

  it('lists shallower levels first, so a big subfolder cannot hide its siblings', async () => {
    await Promise.all(
      Array.from({ length: 600 }, (_, i) => fx.write(`wide/a/f${String(i).padStart(3, '0')}`, '')),
    );
    await fx.write('wide/b/one.txt', '');
    await fx.write('wide/z.txt', '');
    const result = await list({ path: 'wide', depth: 3 });
    const lines = result.content.split('\n');
    expect(lines[1]).toBe('  a/ (600 entries, 103 not listed: entry cap)');
    expect(lines.slice(-3)).toEqual([
      '  b/ (not read: entry cap)',
      '  z.txt (0 B)',
      'entry cap of 500 reached: 103 entries not listed, 1 directories not read; ' +
        'list a subdirectory to see more',
    ]);
    expect(result.data).toMatchObject({ listed: 500, omitted: 103, unreadDirectories: 1 });
  });
});

describe('list_directory failures', () => {
  it('fails with not_found, not_a_directory and path_outside_workspace', async () => {
    expect((await list({ path: 'missing' })).error?.code).toBe('not_found');
    expect((await list({ path: 'README.md' })).error).toEqual({
      code: 'not_a_directory',
      message: 'README.md is not a directory; use read_file',
    });
    for (const requested of ['link', '..', fx.outside]) {
      const result = await list({ path: requested });
      expect(result.error?.code).toBe('path_outside_workspace');
      expect(result.content).toContain('path is outside the workspace');
    }
  });

  it('fails with cancelled when the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await list({ path: '.' }, controller.signal)).error?.code).toBe('cancelled');
  });

  // Root reads every directory whatever its mode, so this runs only for other users.
  it.runIf(process.getuid?.() !== 0)('shows an unreadable subdirectory as a fact', async () => {
    await chmod(path.join(fx.workspace, 'src/lib'), 0o000);
    try {
      const result = await list({ path: 'src' });
      expect(result.content).toContain('  lib/ (unreadable: EACCES)');
    } finally {
      await chmod(path.join(fx.workspace, 'src/lib'), 0o755);
    }
  });
});
