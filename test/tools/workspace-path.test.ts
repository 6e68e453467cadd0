import { mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from '../../host/tools/index.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  await fx.write('src/a.ts', 'export {};\n');
});
afterEach(() => fx.remove());

function outsideReason(result: Awaited<ReturnType<typeof resolveWorkspacePath>>): string {
  if (result.ok || result.code !== 'path_outside_workspace') {
    throw new Error(`expected path_outside_workspace, got ${JSON.stringify(result)}`);
  }
  return result.reason;
}

describe('resolveWorkspacePath inside the workspace', () => {
  it('resolves relative and absolute paths to the real path and a relative one', async () => {
    const expected = { ok: true, path: path.join(fx.workspace, 'src/a.ts'), relative: 'src/a.ts' };
    expect(await resolveWorkspacePath(fx.workspace, 'src/a.ts')).toEqual(expected);
    expect(await resolveWorkspacePath(fx.workspace, './src/../src/a.ts')).toEqual(expected);
    expect(await resolveWorkspacePath(fx.workspace, path.join(fx.workspace, 'src/a.ts'))).toEqual(
      expected,
    );
  });

  it('names the workspace itself "."', async () => {
    expect(await resolveWorkspacePath(fx.workspace, '.')).toEqual({
      ok: true,
      path: fx.workspace,
      relative: '.',
    });
  });

  it('accepts a name that merely starts with two dots', async () => {
    await fx.write('..notes', 'x');
    expect(await resolveWorkspacePath(fx.workspace, '..notes')).toMatchObject({
      ok: true,
      relative: '..notes',
    });
  });

  it('resolves a path that does not exist yet under its deepest existing ancestor', async () => {
    expect(await resolveWorkspacePath(fx.workspace, 'src/new/deeper/file.ts')).toEqual({
      ok: true,
      path: path.join(fx.workspace, 'src/new/deeper/file.ts'),
      relative: 'src/new/deeper/file.ts',
    });
  });

  it('follows a symlink that stays inside to its real target', async () => {
    await symlink('src', path.join(fx.workspace, 'source'));
    expect(await resolveWorkspacePath(fx.workspace, 'source/a.ts')).toEqual({
      ok: true,
      path: path.join(fx.workspace, 'src/a.ts'),
      relative: 'src/a.ts',
    });
  });

  it('uses the real path of a workspace reached through a symlink', async () => {
    const linkedWorkspace = path.join(fx.root, 'linked-workspace');
    await symlink(fx.workspace, linkedWorkspace);
    expect(await resolveWorkspacePath(linkedWorkspace, 'src/a.ts')).toEqual({
      ok: true,
      path: path.join(fx.workspace, 'src/a.ts'),
      relative: 'src/a.ts',
    });
    expect(
      outsideReason(await resolveWorkspacePath(linkedWorkspace, '../outside/secret.txt')),
    ).toBe('path is outside the workspace: ../outside/secret.txt');
  });
});

describe('resolveWorkspacePath refuses what escapes', () => {
  it('refuses .. out of the workspace', async () => {
    expect(await resolveWorkspacePath(fx.workspace, '../x')).toEqual({
      ok: false,
      code: 'path_outside_workspace',
      reason: 'path is outside the workspace: ../x',
      path: path.join(fx.root, 'x'),
    });
    expect(outsideReason(await resolveWorkspacePath(fx.workspace, 'src/../../outside'))).toBe(
      'path is outside the workspace: src/../../outside',
    );
  });

  it('refuses absolute paths outside, with a reason people can read', async () => {
    expect(outsideReason(await resolveWorkspacePath(fx.workspace, '/etc/passwd'))).toBe(
      'path is outside the workspace: /etc/passwd',
    );
  });

  it('refuses a sibling folder that shares the workspace name as a prefix', async () => {
    await mkdir(`${fx.workspace}-other`);
    outsideReason(await resolveWorkspacePath(fx.workspace, `${fx.workspace}-other`));
  });

  it('refuses a symlink pointing outside, and paths through it', async () => {
    await symlink(fx.outside, path.join(fx.workspace, 'out'));
    expect(outsideReason(await resolveWorkspacePath(fx.workspace, 'out'))).toBe(
      `path is outside the workspace: out (resolves to ${fx.outside})`,
    );
    expect(await resolveWorkspacePath(fx.workspace, 'out/secret.txt')).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
      path: path.join(fx.outside, 'secret.txt'),
    });
  });

  it('refuses a path that does not exist yet under a directory linked outside', async () => {
    await symlink(fx.outside, path.join(fx.workspace, 'out'));
    expect(await resolveWorkspacePath(fx.workspace, 'out/new/file.txt')).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
      path: path.join(fx.outside, 'new/file.txt'),
    });
  });

  it('refuses a dangling symlink whose target outside does not exist yet', async () => {
    await symlink(path.join(fx.outside, 'planted.txt'), path.join(fx.workspace, 'dangling'));
    expect(await resolveWorkspacePath(fx.workspace, 'dangling')).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
      path: path.join(fx.outside, 'planted.txt'),
    });
  });

  it('refuses a NUL byte', async () => {
    expect(await resolveWorkspacePath(fx.workspace, 'src/a.ts\0.png')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'path contains a NUL byte',
    });
  });

  it('refuses a symlink loop as an invalid path', async () => {
    await symlink('loop-b', path.join(fx.workspace, 'loop-a'));
    await symlink('loop-a', path.join(fx.workspace, 'loop-b'));
    expect(await resolveWorkspacePath(fx.workspace, 'loop-a/x')).toMatchObject({
      ok: false,
      code: 'invalid_path',
    });
  });
});

// Probed, not assumed: APFS on macOS is case-insensitive, ext4 on Linux is not.
const probe = await createFixture();
await writeFile(path.join(probe.workspace, 'Probe'), '');
const caseInsensitive = await stat(path.join(probe.workspace, 'PROBE')).then(
  () => true,
  () => false,
);
await probe.remove();

describe('resolveWorkspacePath on a case-insensitive file system', () => {
  it.runIf(caseInsensitive)('compares real paths in their on-disk case', async () => {
    const shouted = path.join(fx.root, 'WORKSPACE');
    expect(await resolveWorkspacePath(fx.workspace, path.join(shouted, 'SRC/A.TS'))).toEqual({
      ok: true,
      path: path.join(fx.workspace, 'src/a.ts'),
      relative: 'src/a.ts',
    });
    outsideReason(await resolveWorkspacePath(shouted, path.join(fx.root, 'OUTSIDE/secret.txt')));
  });
});
