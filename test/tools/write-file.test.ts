import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolInput } from '../../host/tools/index.js';
import { writeFileTool } from '../../host/tools/testing.js';
import { createWriteFileTool } from '../../host/tools/testing.js';
import { PREVIEW_DIFF_MAX_BYTES, TEMP_FILE_PATTERN } from '../../host/tools/testing.js';
import type { WriteFileInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});
afterEach(() => fx.remove());

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const write = (input: WriteFileInput, signal?: AbortSignal) =>
  writeFileTool.execute(input, fx.context(signal));
const preview = (input: WriteFileInput) =>
  writeFileTool.preview!(input, { workspace: fx.workspace, signal: new AbortController().signal });
const inWorkspace = (relative: string) => readFile(path.join(fx.workspace, relative), 'utf8');

describe('write_file creates and replaces files', () => {
  it('creates a new file when expectedSha256 is null, with mode 0644 and its diff', async () => {
    const content = 'one\ntwo\n';
    const result = await write({ path: 'notes.txt', content, expectedSha256: null });
    expect(result).toEqual({
      status: 'succeeded',
      summary: 'created notes.txt (new file, +2 lines, 8 B)',
      content: `wrote 8 bytes to notes.txt (sha256 ${sha256(content)}): new file, +2 lines`,
      data: {
        path: 'notes.txt',
        beforeSha256: null,
        afterSha256: sha256(content),
        bytes: 8,
        linesAdded: 2,
        linesRemoved: 0,
      },
      artifacts: [
        {
          kind: 'diff',
          name: 'notes.txt.diff',
          content: '--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n',
        },
      ],
    });
    expect(await inWorkspace('notes.txt')).toBe(content);
    expect((await stat(path.join(fx.workspace, 'notes.txt'))).mode & 0o777).toBe(0o644);
  });

  it('creates missing parent folders', async () => {
    const result = await write({ path: 'src/deep/new.ts', content: 'x\n', expectedSha256: null });
    expect(result.status).toBe('succeeded');
    expect(await inWorkspace('src/deep/new.ts')).toBe('x\n');
  });

  it('replaces a file whose digest is the expected one, keeping its mode', async () => {
    const before = 'a\nb\nc\n';
    const file = await fx.write('script.sh', before);
    await chmod(file, 0o750);
    const after = 'a\nB\nc\n';
    const result = await write({
      path: 'script.sh',
      content: after,
      expectedSha256: sha256(before),
    });
    expect(result).toMatchObject({
      status: 'succeeded',
      summary: 'wrote script.sh (+1 -1 lines, 6 B)',
      content: `wrote 6 bytes to script.sh (sha256 ${sha256(after)}): +1 -1 lines`,
      data: { beforeSha256: sha256(before), afterSha256: sha256(after), bytes: 6 },
      artifacts: [
        {
          kind: 'diff',
          name: 'script.sh.diff',
          content: '--- a/script.sh\n+++ b/script.sh\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
        },
        { kind: 'baseline', name: 'script.sh.before', content: before },
      ],
    });
    expect(await readFile(file, 'utf8')).toBe(after);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
  });

  it('writes through a symlink that stays inside to its target, keeping the link', async () => {
    await fx.write('real.txt', 'old\n');
    await symlink('real.txt', path.join(fx.workspace, 'alias.txt'));
    const result = await write({
      path: 'alias.txt',
      content: 'new\n',
      expectedSha256: sha256('old\n'),
    });
    expect(result.data).toMatchObject({ path: 'real.txt' });
    expect(await inWorkspace('real.txt')).toBe('new\n');
    expect(await inWorkspace('alias.txt')).toBe('new\n');
  });

  it('says so when the content is what the file already holds', async () => {
    await fx.write('same.txt', 'same\n');
    const result = await write({
      path: 'same.txt',
      content: 'same\n',
      expectedSha256: sha256('same\n'),
    });
    expect(result.summary).toBe('wrote same.txt (no changes, 5 B)');
    expect(result.artifacts).toBeUndefined();
  });
});

describe('write_file refuses to write over changes it has not seen', () => {
  it('refuses to create a file that exists, naming its digest', async () => {
    await fx.write('a.txt', 'theirs\n');
    const result = await write({ path: 'a.txt', content: 'mine\n', expectedSha256: null });
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'conflict' },
      data: { path: 'a.txt', expectedSha256: null, currentSha256: sha256('theirs\n') },
    });
    expect(result.error?.message).toContain(sha256('theirs\n'));
    expect(await inWorkspace('a.txt')).toBe('theirs\n');
  });

  it('refuses an expectedSha256 for a file that does not exist', async () => {
    const result = await write({ path: 'gone.txt', content: 'x', expectedSha256: sha256('x') });
    expect(result.error?.code).toBe('conflict');
    expect(await readdir(fx.workspace)).toEqual([]);
  });

  it('fails with conflict when the file changed between preview and execution', async () => {
    const file = await fx.write('a.txt', 'v1\n');
    const input = { path: 'a.txt', content: 'v2 from the model\n', expectedSha256: sha256('v1\n') };
    expect(await preview(input)).toEqual({
      kind: 'write',
      path: 'a.txt',
      realPath: path.join(fx.workspace, 'a.txt'),
      diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-v1\n+v2 from the model\n',
      baseSha256: sha256('v1\n'),
      newSha256: sha256('v2 from the model\n'),
    });
    await writeFile(file, 'v1 edited by the user\n');
    const result = await write(input);
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'conflict' },
      data: { currentSha256: sha256('v1 edited by the user\n') },
    });
    expect(result.error?.message).toContain(sha256('v1 edited by the user\n'));
    expect(await readFile(file, 'utf8')).toBe('v1 edited by the user\n');
    expect(await readdir(fx.workspace)).toEqual(['a.txt']);
  });

  it('fails with conflict when another writer replaces the file during the write', async () => {
    const file = await fx.write('a.txt', 'v1\n');
    const tool = createWriteFileTool({
      beforeRename: () => writeFile(file, 'written meanwhile\n'),
    });
    const result = await tool.execute(
      { path: 'a.txt', content: 'mine\n', expectedSha256: sha256('v1\n') },
      fx.context(),
    );
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'conflict' },
      data: { currentSha256: sha256('written meanwhile\n') },
    });
    expect(await readFile(file, 'utf8')).toBe('written meanwhile\n');
    expect(await readdir(fx.workspace)).toEqual(['a.txt']);
  });
});

describe('write_file survives a crash before the rename', () => {
  it('leaves the original intact and the new bytes in a recognisable temporary file', async () => {
    const file = await fx.write('src/a.ts', 'original\n');
    let seen: { temp: string; tempBytes: string; target: string; entries: string[] } | undefined;
    const tool = createWriteFileTool({
      async beforeRename(tempPath) {
        seen = {
          temp: path.basename(tempPath),
          tempBytes: await readFile(tempPath, 'utf8'),
          target: await readFile(file, 'utf8'),
          entries: await readdir(path.dirname(tempPath)),
        };
        throw new Error('simulated crash');
      },
    });
    await expect(
      tool.execute(
        { path: 'src/a.ts', content: 'replacement\n', expectedSha256: sha256('original\n') },
        fx.context(),
      ),
    ).rejects.toThrow('simulated crash');
    expect(seen?.target).toBe('original\n');
    expect(seen?.tempBytes).toBe('replacement\n');
    expect(seen?.temp).toMatch(TEMP_FILE_PATTERN);
    expect(seen?.temp).toMatch(/^\.a\.ts\.tether-[0-9a-f]{12}\.tmp$/);
    expect(seen?.entries.sort()).toEqual([seen?.temp, 'a.ts'].sort());
    expect(await readFile(file, 'utf8')).toBe('original\n');
    // A host that survives the failure removes its temporary file.
    expect(await readdir(path.dirname(file))).toEqual(['a.ts']);
  });

  it('creates nothing when a crash comes before a new file is linked in place', async () => {
    const tool = createWriteFileTool({
      beforeRename: () => Promise.reject(new Error('simulated crash')),
    });
    await expect(
      tool.execute({ path: 'new.txt', content: 'x', expectedSha256: null }, fx.context()),
    ).rejects.toThrow('simulated crash');
    expect(await readdir(fx.workspace)).toEqual([]);
  });
});

describe('write_file stays inside the workspace', () => {
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
    const requested = await setUp(fx);
    const input = { path: requested, content: 'pwned\n', expectedSha256: sha256('secret\n') };
    const result = await write(input);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'path_outside_workspace' } });
    expect(await readFile(path.join(fx.outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
    expect(await preview(input)).toEqual({
      kind: 'path',
      path: path.join(fx.outside, 'secret.txt'),
      access: 'write',
    });
  });

  it('refuses to create a new file under a symlinked parent folder', async () => {
    await symlink(fx.outside, path.join(fx.workspace, 'linked'));
    const result = await write({
      path: 'linked/new/planted.txt',
      content: 'x',
      expectedSha256: null,
    });
    expect(result.error?.code).toBe('path_outside_workspace');
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
  });

  it('refuses a directory and the workspace itself', async () => {
    await mkdir(path.join(fx.workspace, 'dir'));
    for (const requested of ['dir', '.']) {
      const result = await write({ path: requested, content: 'x', expectedSha256: null });
      expect(result.error?.code).toBe('is_a_directory');
    }
  });
});

describe('write_file input and preview', () => {
  it('requires expectedSha256, as lowercase hex or null, and bounds the content', () => {
    const parse = (value: unknown) => parseToolInput(writeFileTool, JSON.stringify(value));
    expect(parse({ path: 'a', content: 'x' })).toMatchObject({ ok: false });
    expect(parse({ path: 'a', content: 'x', expectedSha256: 'ABC' })).toMatchObject({ ok: false });
    expect(parse({ path: 'a', content: 'x', expectedSha256: null })).toMatchObject({ ok: true });
    const huge = 'é'.repeat(6 * 1024 * 1024);
    expect(parse({ path: 'a', content: huge, expectedSha256: null })).toEqual({
      ok: false,
      message: 'invalid input for write_file: content: expected at most 10.0 MiB of UTF-8',
    });
    expect(writeFileTool.parameters).toMatchObject({
      required: ['path', 'content', 'expectedSha256'],
    });
  });

  it('caps the preview diff at 200 KiB and keeps the whole diff in the artifact', async () => {
    const content = Array.from({ length: 30_000 }, (_, i) => `line number ${i}\n`).join('');
    const input = { path: 'big.txt', content, expectedSha256: null };
    const shown = await preview(input);
    if (shown.kind !== 'write') throw new Error(`expected a write preview, got ${shown.kind}`);
    expect(Buffer.byteLength(shown.diff)).toBeLessThanOrEqual(PREVIEW_DIFF_MAX_BYTES);
    expect(shown.diff).toMatch(/\n\[diff cut at 200\.0 KiB: \d+ of 30003 lines shown; [^\n]*\]\n$/);
    expect(shown).toMatchObject({ baseSha256: null, newSha256: sha256(content) });
    const result = await write(input);
    const artifact = result.artifacts?.[0]?.content ?? '';
    expect(artifact.split('\n')).toHaveLength(30_004);
    expect(artifact.startsWith(shown.diff.slice(0, shown.diff.lastIndexOf('\n[diff cut')))).toBe(
      true,
    );
  });

  it('previews a write that would fail with the reason instead of a diff', async () => {
    await fx.write('a.txt', 'exists\n');
    expect(await preview({ path: 'a.txt', content: 'x', expectedSha256: null })).toMatchObject({
      kind: 'write',
      path: 'a.txt',
      diff: expect.stringMatching(
        /^\[write_file would fail if run now: conflict: a\.txt already exists/,
      ) as string,
      baseSha256: sha256('exists\n'),
      newSha256: sha256('exists\n'),
    });
  });

  it('writes nothing once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await write(
      { path: 'a.txt', content: 'x', expectedSha256: null },
      controller.signal,
    );
    expect(result.error?.code).toBe('cancelled');
    expect(await readdir(fx.workspace)).toEqual([]);
  });
});
