import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../host/tools/testing.js';
import { READ_FILE_MAX_BYTES } from '../../host/tools/testing.js';
import type { ReadFileInput } from '../../host/tools/testing.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});
afterEach(() => fx.remove());

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const read = (input: ReadFileInput, signal?: AbortSignal) =>
  readFileTool.execute(input, fx.context(signal));
const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');

describe('read_file ranges', () => {
  it('returns a whole small file after a header with its size and sha256', async () => {
    const text = 'one\ntwo\nthree\n';
    await fx.write('a.txt', text);
    const result = await read({ path: 'a.txt' });
    expect(result).toEqual({
      status: 'succeeded',
      summary: 'read 3 lines of a.txt (14 B)',
      content: `a.txt: lines 1-3 of 3 lines, 14 bytes, sha256 ${sha256(text)}\n${text}`,
      data: {
        path: 'a.txt',
        sha256: sha256(text),
        bytes: 14,
        binary: false,
        lines: 3,
        startLine: 1,
        endLine: 3,
        returnedBytes: 14,
        truncated: false,
        nextOffset: null,
      },
    });
  });

  it('returns offset..offset+limit-1 and the sha256 of the whole file', async () => {
    const text = numbered(5);
    await fx.write('five.txt', text);
    const result = await read({ path: 'five.txt', offset: 2, limit: 2 });
    expect(result.content).toBe(
      `five.txt: lines 2-3 of 5 lines, ${text.length} bytes, sha256 ${sha256(text)}; ` +
        `2 more lines, continue with offset 4\nline 2\nline 3\n`,
    );
    expect(result.summary).toBe('read lines 2-3 of 5 from five.txt (14 B)');
    expect(result.data).toMatchObject({ sha256: sha256(text), nextOffset: 4, truncated: false });
  });

  it('counts a last line without a newline', async () => {
    await fx.write('tail.txt', 'a\nb');
    const result = await read({ path: 'tail.txt', offset: 2 });
    expect(result.content).toMatch(/^tail\.txt: lines 2-2 of 2 lines, 3 bytes, .*\nb$/);
    expect(result.data).toMatchObject({ lines: 2, endLine: 2, nextOffset: null });
  });

  it('returns 2000 lines by default', async () => {
    await fx.write('long.txt', numbered(2500));
    const result = await read({ path: 'long.txt' });
    expect(result.data).toMatchObject({ lines: 2500, endLine: 2000, nextOffset: 2001 });
    expect(result.content.endsWith('line 2000\n')).toBe(true);
    expect(result.content.split('\n')[0]).toContain('500 more lines, continue with offset 2001');
  });

  it('says so when the offset is past the end, and when the file is empty', async () => {
    await fx.write('short.txt', 'x\n');
    await fx.write('empty.txt', '');
    const past = await read({ path: 'short.txt', offset: 9 });
    expect(past.status).toBe('succeeded');
    expect(past.content).toMatch(/^short\.txt: offset 9 is past the end of the file \(1 lines/);
    const empty = await read({ path: 'empty.txt' });
    expect(empty.content).toBe(`empty.txt: empty file, 0 bytes, sha256 ${sha256('')}`);
    expect(empty.data).toMatchObject({ lines: 0, bytes: 0 });
  });
});

describe('read_file bounds', () => {
  it('reads a 5 MB file within the byte cap, cut at a line end, hashing all of it', async () => {
    const text = numbered(600_000).slice(0, 5 * 1024 * 1024);
    await fx.write('big.log', text);
    const result = await read({ path: 'big.log', limit: 1_000_000 });
    const [header = '', ...rest] = result.content.split('\n');
    const returned = rest.join('\n');
    expect(Buffer.byteLength(returned)).toBeLessThanOrEqual(READ_FILE_MAX_BYTES);
    expect(Buffer.byteLength(returned)).toBeGreaterThan(READ_FILE_MAX_BYTES - 100);
    expect(text.startsWith(returned)).toBe(true);
    expect(returned.endsWith('\n')).toBe(true);
    const shown = returned.split('\n').length - 1;
    expect(header).toContain(`lines 1-${shown} of `);
    expect(header).toContain(`cut at the 256.0 KiB cap, continue with offset ${shown + 1}`);
    expect(result.data).toMatchObject({
      sha256: sha256(text),
      bytes: 5 * 1024 * 1024,
      truncated: true,
      nextOffset: shown + 1,
    });
  });

  it('splits a line longer than the cap on a character boundary', async () => {
    const text = `${'é'.repeat(READ_FILE_MAX_BYTES)}\nafter\n`;
    await fx.write('one-line.txt', text);
    const result = await read({ path: 'one-line.txt' });
    const [header, returned] = result.content.split('\n');
    expect(returned === 'é'.repeat(READ_FILE_MAX_BYTES / 2)).toBe(true);
    expect(header).toBe(
      `one-line.txt: the first 262144 bytes of line 1 of 2 lines, ${Buffer.byteLength(text)} ` +
        `bytes, sha256 ${sha256(text)}; cut at the 256.0 KiB cap, continue with offset 2`,
    );
    expect(result.summary).toBe('read part of line 1 of one-line.txt (256.0 KiB)');
    expect(result.data).toMatchObject({ truncated: true, nextOffset: 2, sha256: sha256(text) });
  });
});

describe('read_file binary files', () => {
  it('reports a file with a NUL byte as binary instead of dumping it', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]);
    await fx.write('image.png', bytes);
    const result = await read({ path: 'image.png' });
    expect(result.content).toBe(`image.png: binary file, 7 bytes, sha256 ${sha256(bytes)}`);
    expect(result.summary).toBe('image.png is binary (7 B)');
    expect(result.data).toEqual({
      path: 'image.png',
      sha256: sha256(bytes),
      bytes: 7,
      binary: true,
    });
  });

  it('reports invalid UTF-8 far past the first 8 KiB as binary', async () => {
    const bytes = Buffer.concat([Buffer.from('a'.repeat(300_000)), Buffer.from([0xff, 0x0a])]);
    await fx.write('latin1.txt', bytes);
    expect((await read({ path: 'latin1.txt', limit: 1 })).data).toMatchObject({ binary: true });
  });

  it('keeps a multi-byte character split across read chunks as text', async () => {
    for (let shift = 0; shift < 4; shift += 1) {
      const text = `${'a'.repeat(128 * 1024 - shift)}😀\n`;
      await fx.write('emoji.txt', text);
      const result = await read({ path: 'emoji.txt' });
      expect(result.data).toMatchObject({ binary: false, sha256: sha256(text) });
      expect(result.content.endsWith('😀\n')).toBe(true);
    }
  });

  it('reports a file ending inside a multi-byte character as binary', async () => {
    await fx.write('cut.txt', Buffer.from([0x61, 0xe2, 0x82]));
    expect((await read({ path: 'cut.txt' })).data).toMatchObject({ binary: true });
  });
});

describe('read_file failures', () => {
  it('fails with not_found for a missing file', async () => {
    expect(await read({ path: 'missing.txt' })).toEqual({
      status: 'failed',
      summary: 'not found: missing.txt',
      content: 'not found: missing.txt',
      error: { code: 'not_found', message: 'not found: missing.txt' },
    });
  });

  it('fails with is_a_directory for a directory', async () => {
    await mkdir(path.join(fx.workspace, 'src'));
    expect((await read({ path: 'src' })).error).toEqual({
      code: 'is_a_directory',
      message: 'src is a directory; use list_directory',
    });
  });

  it('fails with not_a_file for a FIFO instead of waiting for a writer', async () => {
    await promisify(execFile)('mkfifo', [path.join(fx.workspace, 'pipe')]);
    expect((await read({ path: 'pipe' })).error?.code).toBe('not_a_file');
  });

  it('refuses paths outside the workspace, also through a symlink', async () => {
    await symlink(path.join(fx.outside, 'secret.txt'), path.join(fx.workspace, 'innocent.txt'));
    for (const requested of ['innocent.txt', '../outside/secret.txt', '/etc/passwd']) {
      const result = await read({ path: requested });
      expect(result.error?.code).toBe('path_outside_workspace');
      expect(result.content).not.toContain('secret\n');
    }
  });

  it('reads through a symlink that stays inside the workspace', async () => {
    await fx.write('real.txt', 'hello\n');
    await symlink('real.txt', path.join(fx.workspace, 'alias.txt'));
    const result = await read({ path: 'alias.txt' });
    expect(result.summary).toBe('read 1 lines of real.txt (6 B)');
  });

  it('fails with cancelled when the signal has aborted', async () => {
    await fx.write('a.txt', 'a\n');
    const controller = new AbortController();
    controller.abort();
    expect((await read({ path: 'a.txt' }, controller.signal)).error).toEqual({
      code: 'cancelled',
      message: 'reading a.txt was cancelled',
    });
  });
});
