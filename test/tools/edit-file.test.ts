import { createHash } from 'node:crypto';
import { chmod, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolInput } from '../../host/tools/index.js';
import { editFileTool } from '../../host/tools/testing.js';
import { createEditFileTool } from '../../host/tools/testing.js';
import { TEMP_FILE_PATTERN } from '../../host/tools/testing.js';
import type { EditFileInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});
afterEach(() => fx.remove());

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const edit = (input: EditFileInput) => editFileTool.execute(input, fx.context());
const preview = (input: EditFileInput) =>
  editFileTool.preview!(input, { workspace: fx.workspace, signal: new AbortController().signal });
const SOURCE = 'function greet() {\n  return "hello";\n}\n';

describe('edit_file replaces one occurrence', () => {
  it('replaces oldText with newText, keeps the mode and returns the diff', async () => {
    const file = await fx.write('src/greet.ts', SOURCE);
    await chmod(file, 0o600);
    const after = SOURCE.replace('"hello"', '"hi"');
    const result = await edit({ path: 'src/greet.ts', oldText: '"hello"', newText: '"hi"' });
    expect(result).toEqual({
      status: 'succeeded',
      summary: 'edited src/greet.ts (+1 -1 lines, 36 B)',
      content: `wrote 36 bytes to src/greet.ts (sha256 ${sha256(after)}): +1 -1 lines`,
      data: {
        path: 'src/greet.ts',
        beforeSha256: sha256(SOURCE),
        afterSha256: sha256(after),
        bytes: 36,
        linesAdded: 1,
        linesRemoved: 1,
      },
      artifacts: [
        {
          kind: 'diff',
          name: 'src/greet.ts.diff',
          content:
            '--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1,3 +1,3 @@\n function greet() {\n' +
            '-  return "hello";\n+  return "hi";\n }\n',
        },
        { kind: 'baseline', name: 'src/greet.ts.before', content: SOURCE },
      ],
    });
    expect(await readFile(file, 'utf8')).toBe(after);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('deletes oldText when newText is empty', async () => {
    await fx.write('a.txt', 'keep\ndrop\nkeep too\n');
    await edit({ path: 'a.txt', oldText: 'drop\n', newText: '' });
    expect(await readFile(path.join(fx.workspace, 'a.txt'), 'utf8')).toBe('keep\nkeep too\n');
  });

  it('edits bytes around non-UTF-8 content without touching them', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('name=old')]);
    await fx.write('blob.bin', bytes);
    const result = await edit({ path: 'blob.bin', oldText: 'old', newText: 'new' });
    expect(result.summary).toBe('edited blob.bin (binary content, 11 B)');
    expect(await readFile(path.join(fx.workspace, 'blob.bin'))).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('name=new')]),
    );
  });

  it('previews the diff against the file as it is now', async () => {
    await fx.write('src/greet.ts', SOURCE);
    expect(await preview({ path: 'src/greet.ts', oldText: 'hello', newText: 'hi' })).toEqual({
      kind: 'write',
      path: 'src/greet.ts',
      realPath: path.join(fx.workspace, 'src/greet.ts'),
      diff:
        '--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1,3 +1,3 @@\n function greet() {\n' +
        '-  return "hello";\n+  return "hi";\n }\n',
      baseSha256: sha256(SOURCE),
      newSha256: sha256(SOURCE.replace('hello', 'hi')),
    });
  });
});

describe('edit_file needs exactly one match', () => {
  it('fails with no_match, saying how many, and leaves the file alone', async () => {
    await fx.write('a.txt', SOURCE);
    const result = await edit({ path: 'a.txt', oldText: 'goodbye', newText: 'x' });
    expect(result).toMatchObject({
      status: 'failed',
      error: {
        code: 'no_match',
        message: expect.stringContaining('matches 0 times in a.txt') as string,
      },
      data: { path: 'a.txt', matches: 0 },
    });
    expect(await readFile(path.join(fx.workspace, 'a.txt'), 'utf8')).toBe(SOURCE);
  });

  it('hints at CRLF line endings when oldText has bare newlines', async () => {
    await fx.write('dos.txt', 'one\r\ntwo\r\n');
    const result = await edit({ path: 'dos.txt', oldText: 'one\ntwo', newText: 'x' });
    expect(result.error?.message).toContain('(the file has CRLF line endings)');
  });

  it('fails with ambiguous_match for two matches, counting overlapping ones', async () => {
    await fx.write('a.txt', 'x = 1;\nx = 1;\n');
    const twice = await edit({ path: 'a.txt', oldText: 'x = 1;', newText: 'x = 2;' });
    expect(twice).toMatchObject({
      status: 'failed',
      error: {
        code: 'ambiguous_match',
        message: expect.stringContaining('matches 2 times in a.txt') as string,
      },
      data: { matches: 2 },
    });
    await fx.write('b.txt', 'aaa');
    const overlapping = await edit({ path: 'b.txt', oldText: 'aa', newText: 'b' });
    expect(overlapping).toMatchObject({ error: { code: 'ambiguous_match' }, data: { matches: 2 } });
    expect(await readFile(path.join(fx.workspace, 'a.txt'), 'utf8')).toBe('x = 1;\nx = 1;\n');
  });

  it('previews a failing edit with the reason and no change', async () => {
    await fx.write('a.txt', 'x\nx\n');
    expect(await preview({ path: 'a.txt', oldText: 'x', newText: 'y' })).toEqual({
      kind: 'write',
      path: 'a.txt',
      realPath: path.join(fx.workspace, 'a.txt'),
      diff:
        '[edit_file would fail if run now: oldText matches 2 times in a.txt; it must match ' +
        'exactly once: include more surrounding lines to make it unique]\n',
      baseSha256: sha256('x\nx\n'),
      newSha256: sha256('x\nx\n'),
    });
  });

  it('fails with not_found for a missing file', async () => {
    const result = await edit({ path: 'missing.txt', oldText: 'a', newText: 'b' });
    expect(result.error?.code).toBe('not_found');
    expect(await readdir(fx.workspace)).toEqual([]);
  });

  it('rejects an empty oldText', () => {
    const parsed = parseToolInput(editFileTool, '{"path":"a","oldText":"","newText":"x"}');
    expect(parsed).toMatchObject({ ok: false });
  });
});

describe('edit_file and expectedSha256', () => {
  it('fails with conflict when the file changed between preview and execution', async () => {
    const file = await fx.write('a.txt', SOURCE);
    const input = {
      path: 'a.txt',
      oldText: 'hello',
      newText: 'hi',
      expectedSha256: sha256(SOURCE),
    };
    expect(await preview(input)).toMatchObject({ baseSha256: sha256(SOURCE) });
    const changed = `${SOURCE}// edited by the user\n`;
    await writeFile(file, changed);
    const result = await edit(input);
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'conflict', message: expect.stringContaining(sha256(changed)) as string },
      data: { path: 'a.txt', expectedSha256: sha256(SOURCE), currentSha256: sha256(changed) },
    });
    expect(await readFile(file, 'utf8')).toBe(changed);
    expect(await readdir(fx.workspace)).toEqual(['a.txt']);
  });

  it('without expectedSha256, applies to the content as it is at execution', async () => {
    const file = await fx.write('a.txt', SOURCE);
    await writeFile(file, `// header\n${SOURCE}`);
    const result = await edit({ path: 'a.txt', oldText: 'hello', newText: 'hi' });
    expect(result.status).toBe('succeeded');
    expect(await readFile(file, 'utf8')).toBe(`// header\n${SOURCE.replace('hello', 'hi')}`);
  });
});

describe('edit_file survives a crash before the rename', () => {
  it('leaves the original intact while the new bytes wait in a temporary file', async () => {
    const file = await fx.write('a.txt', SOURCE);
    let seen: { temp: string; tempBytes: string; target: string } | undefined;
    const tool = createEditFileTool({
      async beforeRename(tempPath) {
        seen = {
          temp: path.basename(tempPath),
          tempBytes: await readFile(tempPath, 'utf8'),
          target: await readFile(file, 'utf8'),
        };
        throw new Error('simulated crash');
      },
    });
    await expect(
      tool.execute({ path: 'a.txt', oldText: 'hello', newText: 'hi' }, fx.context()),
    ).rejects.toThrow('simulated crash');
    expect(seen).toEqual({
      temp: expect.stringMatching(TEMP_FILE_PATTERN) as string,
      tempBytes: SOURCE.replace('hello', 'hi'),
      target: SOURCE,
    });
    expect(await readFile(file, 'utf8')).toBe(SOURCE);
    expect(await readdir(fx.workspace)).toEqual(['a.txt']);
  });
});

describe('edit_file stays inside the workspace', () => {
  const outsideCases: [string, (fx: Fixture) => Promise<string>][] = [
    ['.. out of the workspace', () => Promise.resolve('../outside/secret.txt')],
    ['an absolute path outside', (f) => Promise.resolve(path.join(f.outside, 'secret.txt'))],
    [
      'a symlink to a file outside',
      async (f) => {
        await symlink(path.join(f.outside, 'secret.txt'), path.join(f.workspace, 'link.txt'));
        return 'link.txt';
      },
    ],
    [
      'a symlinked parent folder',
      async (f) => {
        await symlink(f.outside, path.join(f.workspace, 'linked'));
        return 'linked/secret.txt';
      },
    ],
  ];

  it.each(outsideCases)('refuses %s', async (_name, setUp) => {
    const input = { path: await setUp(fx), oldText: 'secret', newText: 'pwned' };
    const result = await edit(input);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'path_outside_workspace' } });
    expect(await readFile(path.join(fx.outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
    expect(await preview(input)).toEqual({
      kind: 'path',
      path: path.join(fx.outside, 'secret.txt'),
      access: 'write',
    });
  });
});
