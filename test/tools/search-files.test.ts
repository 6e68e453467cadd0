import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolInput } from '../../host/tools/index.js';
import { createSearchFilesTool } from '../../host/tools/testing.js';
import type { SearchFilesInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';
import { FOUND, searchOptions, writeSearchTree } from './search-tree.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  await writeSearchTree(fx);
});
afterEach(() => fx.remove());

const tool = createSearchFilesTool(searchOptions());
const search = (input: SearchFilesInput, signal?: AbortSignal) =>
  tool.execute(input, fx.context(signal));

describe('search_files over a real tree', () => {
  it('finds the matching lines, skipping ignored, noisy, binary, large, protected files and symlinks', async () => {
    const result = await search({ pattern: 'needle' });
    const lines = result.content.split('\n');
    expect(result.status).toBe('succeeded');
    expect(lines[0]).toMatch(
      /^search_files \/needle\/i in \.: 5 matching lines in 4 files; 8 files searched \(.+\) in \d+ ms$/,
    );
    expect(lines.slice(1, 6)).toEqual([
      'keep.log:1: needle kept by a negation',
      'src/app.ts:1: const needle = 1;',
      'src/app.ts:3:   return needle;',
      'src/deep/lib.ts:1: // a needle here',
      'sub/important.tmp:1: needle taken back by a nested negation',
    ]);
    expect(lines[6]).toBe(
      'skipped: 5 ignored by .gitignore, 2 in noisy folders not entered (.git, node_modules; ' +
        'name one as path to search it), 3 protected, 3 symlinks (never followed), 1 binary, ' +
        '1 larger than 2.0 MiB',
    );
    expect(lines).toHaveLength(7);
    expect([...new Set(lines.slice(1, 6).map((line) => line.split(':')[0]))]).toEqual(FOUND);
    expect(result.data).toMatchObject({ matches: 5, matchedFiles: 4, more: 0, incomplete: null });
  });

  it('says how many more matches there are past maxResults', async () => {
    const result = await search({ pattern: 'needle', maxResults: 2 });
    expect(result.content.split('\n').slice(1, 4)).toEqual([
      'keep.log:1: needle kept by a negation',
      'src/app.ts:1: const needle = 1;',
      'more: 3 more matching lines not shown; pass maxResults (up to 500) or narrow path/glob',
    ]);
    expect(result.data).toMatchObject({ matches: 5, returned: 2, more: 3 });
  });

  it('keeps its output under 64 KiB, counting what did not fit as more', async () => {
    await fx.write('src/many.ts', `needle ${'x'.repeat(250)}\n`.repeat(500));
    const result = await search({ pattern: 'needle', path: 'src/many.ts', maxResults: 500 });
    const returned = result.data?.['returned'] as number;
    expect(result.content.length).toBeLessThan(64 * 1024 + 1024);
    expect(returned).toBeGreaterThan(200);
    expect(returned).toBeLessThan(500);
    expect(result.data).toMatchObject({ matches: 500, more: 500 - returned });
    expect(result.content).toContain(`\nmore: ${500 - returned} more matching lines not shown;`);
  });

  it('is case-insensitive unless the pattern has a capital letter or caseSensitive says so', async () => {
    await fx.write('src/upper.ts', ' NEEDLE\n');
    const found = async (input: SearchFilesInput) => (await search(input)).data?.['matches'];
    expect(await found({ pattern: 'needle', path: 'src' })).toBe(4);
    expect(await found({ pattern: 'NEEDLE', path: 'src' })).toBe(1);
    expect(await found({ pattern: 'needle', path: 'src', caseSensitive: true })).toBe(3);
    expect(await found({ pattern: 'NEEDLE', path: 'src', caseSensitive: false })).toBe(4);
    // An escape is not a capital letter: \W stays smart-case-insensitive.
    expect(await found({ pattern: '\\Wneedle', path: 'src' })).toBe(4);
  });

  it('narrows to a folder, a glob, or a noisy folder named as path', async () => {
    const lines = async (input: SearchFilesInput) =>
      (await search(input)).content.split('\n').filter((line) => /^\S+:\d+: /.test(line));
    expect(await lines({ pattern: 'needle', glob: '*.ts' })).toHaveLength(3);
    expect(await lines({ pattern: 'needle', path: 'src', glob: 'deep/*.ts' })).toEqual([
      'src/deep/lib.ts:1: // a needle here',
    ]);
    expect(await lines({ pattern: 'needle', path: 'node_modules' })).toEqual([
      'node_modules/pkg/index.js:1: module.exports = "needle";',
    ]);
    expect(await lines({ pattern: 'needle', path: 'ignored-dir' })).toEqual([
      'ignored-dir/a.txt:1: needle in an ignored folder',
    ]);
    expect(await lines({ pattern: 'needle', path: 'src/app.ts' })).toHaveLength(2);
  });

  it('refuses Git data, protected paths and paths outside the workspace', async () => {
    // What a case-insensitive disk (APFS) would find as .git/config.
    await fx.write('.GIT/config', 'url = https://needle-token@example.com/repo.git\n');
    for (const [where, code] of [
      ['.git', 'permission_denied'],
      ['.git/config', 'permission_denied'],
      ['.GIT', 'permission_denied'],
      ['.Git/config', 'permission_denied'],
      ['.env', 'permission_denied'],
      ['secrets', 'permission_denied'],
      ['link-out', 'path_outside_workspace'],
      ['../outside', 'path_outside_workspace'],
      ['missing', 'not_found'],
    ] as const) {
      const result = await search({ pattern: 'needle', path: where });
      expect([where, result.status, result.error?.code]).toEqual([where, 'failed', code]);
      expect(result.content).not.toContain('needle-token');
    }
    const everywhere = await search({ pattern: 'needle-token' });
    expect(everywhere.content).not.toContain('.GIT/config');
  });

  it('cuts long lines around the match and matches only the start of very long lines', async () => {
    await fx.write(
      'src/wide.ts',
      `${'a'.repeat(300)}needle${'b'.repeat(300)}\n${'c'.repeat(5000)}needle\n`,
    );
    const result = await search({ pattern: 'needle', path: 'src/wide.ts' });
    const [, hit, ...rest] = result.content.split('\n');
    expect(hit).toBe(`src/wide.ts:1: …${'a'.repeat(40)}needle${'b'.repeat(154)}…`);
    expect(rest).toEqual([
      'long lines: 1 lines longer than 4096 characters were matched in their first 4096 only',
    ]);
  });

  it('rejects an invalid pattern, glob or count before anything runs', () => {
    const parse = (input: unknown) => parseToolInput(tool, JSON.stringify(input));
    expect(parse({ pattern: '(' })).toEqual({
      ok: false,
      message:
        'invalid input for search_files: pattern: not a valid regular expression (Invalid regular expression: /(/: Unterminated group)',
    });
    expect(parse({ pattern: 'x', glob: '../*.ts' })).toMatchObject({ ok: false });
    expect(parse({ pattern: 'x', maxResults: 0 })).toMatchObject({ ok: false });
    expect(parse({ pattern: '' })).toMatchObject({ ok: false });
    expect(parse({ pattern: 'x', recursive: true })).toMatchObject({ ok: false });
    expect(parse({ pattern: 'x', path: 'src', glob: '*.ts', caseSensitive: true })).toMatchObject({
      ok: true,
    });
  });
});

describe('a pattern that backtracks without end', () => {
  it('is stopped at the deadline with what it found so far, and the event loop keeps running', async () => {
    await fx.write('src/a-first.ts', 'aaa needle\n');
    await writeFile(path.join(fx.workspace, 'src', 'evil.ts'), `${'a'.repeat(40)}!\n`);
    const bounded = createSearchFilesTool(searchOptions(2_000));
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);
    const started = performance.now();
    const result = await bounded.execute({ pattern: '^(a+)+$|needle', path: 'src' }, fx.context());
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(result.status).toBe('succeeded');
    expect(result.content).toContain('src/a-first.ts:1: aaa needle');
    expect(result.content).toMatch(
      /\nINCOMPLETE: stopped at the 2000 ms deadline while matching src\/evil\.ts; \d+ files not searched/,
    );
    expect(result.data).toMatchObject({ incomplete: 'deadline' });
    // Bounded: the deadline, plus starting and terminating the thread. The deadline leaves a
    // busy machine time to start the thread and reach evil.ts, which never ends.
    expect(elapsed).toBeLessThan(20_000);
    // The host's event loop kept serving while the thread was stuck.
    expect(ticks).toBeGreaterThan(10);
  });

  it('stops at once when the run is cancelled', async () => {
    await writeFile(path.join(fx.workspace, 'src', 'evil.ts'), `${'a'.repeat(40)}!\n`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await search({ pattern: '^(a+)+$', path: 'src' }, controller.signal);
    expect(result.error?.code).toBe('cancelled');
  });
});
