/**
 * A run's worktree against real git repositories: made on its own branch, committed by
 * the host in one step whatever the worktree's index says, compared with its base,
 * merged into the user's checkout (fast-forward, merge commit, conflict, dirty), removed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changedFiles,
  checkWorktreeSource,
  commitWorktree,
  createWorktree,
  mergeIntoCheckout,
  removeWorktree,
} from '../../host/worktrees/index.js';
import type { Worktree } from '../../host/worktrees/types.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const AUTHOR = { name: 'Tether run run_test', email: 'tether@localhost' };

function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

/** A repository with one commit on `main` and an identity of its own. */
export function makeRepository(folder: string): string {
  mkdirSync(folder, { recursive: true });
  gitIn(folder, 'init', '--quiet', '--initial-branch=main');
  gitIn(folder, 'config', 'user.email', 'user@example.com');
  gitIn(folder, 'config', 'user.name', 'User');
  writeFileSync(path.join(folder, 'README.md'), 'hello\n');
  writeFileSync(path.join(folder, 'notes.txt'), 'one\ntwo\n');
  gitIn(folder, 'add', '.');
  gitIn(folder, 'commit', '--quiet', '-m', 'first');
  return folder;
}

let dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs) dir.remove();
  dirs = [];
});

function setUp(branch = 'tether/abc12345'): { repository: string; worktree: Worktree } {
  const dir = tempDir('tether-worktree-');
  dirs.push(dir);
  const repository = makeRepository(path.join(dir.path, 'repo'));
  const checked = checkWorktreeSource(repository, undefined);
  if (!checked.ok) throw new Error(checked.reason);
  return {
    repository,
    worktree: {
      ...checked.source,
      path: path.join(dir.path, 'data', 'worktrees', 'ses_1'),
      branch,
    },
  };
}

describe('a run worktree', () => {
  it('is refused for a folder that is not a repository, a subfolder, or one without commits', () => {
    const dir = tempDir('tether-worktree-');
    dirs.push(dir);
    expect(checkWorktreeSource(dir.path, undefined)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('is not a git repository') as unknown,
    });
    const empty = path.join(dir.path, 'empty');
    mkdirSync(empty);
    gitIn(empty, 'init', '--quiet');
    expect(checkWorktreeSource(empty, undefined)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('has no commit yet') as unknown,
    });
    const repository = makeRepository(path.join(dir.path, 'repo'));
    mkdirSync(path.join(repository, 'sub'));
    expect(checkWorktreeSource(path.join(repository, 'sub'), undefined)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('a folder inside the repository') as unknown,
    });
    expect(checkWorktreeSource(repository, 'no-such-branch')).toMatchObject({
      ok: false,
      reason: 'no-such-branch is not a branch, tag or commit of ' + repository,
    });
    expect(checkWorktreeSource(repository, 'main')).toMatchObject({ ok: true });
  });

  it('is made on its branch, committed once, and leaves the checkout alone', async () => {
    const { repository, worktree } = setUp();
    const gitDir = await createWorktree(worktree);
    expect(await createWorktree(worktree)).toBe(gitDir);
    expect(gitIn(worktree.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(worktree.branch);
    writeFileSync(path.join(worktree.path, 'notes.txt'), 'one\ntwo\nthree\n');
    writeFileSync(path.join(worktree.path, 'new.txt'), 'new\n');
    const first = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'the task');
    expect(first.committed).toBe(true);
    expect(gitIn(repository, 'rev-parse', `refs/heads/${worktree.branch}`)).toBe(first.head);
    expect(gitIn(repository, 'log', '-1', '--format=%an|%s', first.head)).toBe(
      'Tether run run_test|the task',
    );
    // Nothing changed since: no second commit.
    const again = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'the task');
    expect(again).toEqual({ head: first.head, tree: first.tree, committed: false });
    expect(gitIn(worktree.path, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(repository, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(path.join(repository, 'new.txt'))).toBe(false);
    const change = await changedFiles(repository, worktree.base, first.head);
    expect(change.files).toEqual([
      { path: 'new.txt', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: 'notes.txt', status: 'modified', additions: 1, deletions: 0, binary: false },
    ]);
    expect(change.stat).toEqual({ files: 2, additions: 2, deletions: 0 });
  });

  it('commits a file rewritten at its size in the second git wrote the index', async () => {
    // Git trusts an unchanged stat (seconds, size, inode) unless the entry is no older than
    // the index file; the commit must not lose the change by copying the index a second on.
    const second = (ms: number) => Math.floor(ms / 1000);
    for (let attempt = 1; ; attempt += 1) {
      const { repository, worktree } = setUp(`tether/racy${attempt}`);
      const gitDir = await createWorktree(worktree);
      const notes = path.join(worktree.path, 'notes.txt');
      writeFileSync(notes, 'ONE\nTWO\n');
      const written = second(statSync(path.join(gitDir, 'index')).mtimeMs);
      const entry = gitIn(worktree.path, 'ls-files', '--debug', 'notes.txt');
      const now = statSync(notes);
      const sameSecond =
        [second(now.mtimeMs), second(now.ctimeMs)].every((s) => s === written) &&
        [...entry.matchAll(/time: (\d+):/g)].every((m) => Number(m[1]) === written);
      if (!sameSecond && attempt < 10) continue;
      expect(sameSecond, 'the checkout, the index and the rewrite fell in one second').toBe(true);
      await new Promise((resolve) => setTimeout(resolve, (written + 1) * 1000 - Date.now() + 20));
      const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'the task');
      expect(gitIn(repository, 'show', `${commit.head}:notes.txt`)).toBe('ONE\nTWO');
      expect(gitIn(worktree.path, 'status', '--porcelain')).toBe('');
      return;
    }
  });

  it('merges by fast-forward, then a second branch conflicts and changes nothing', async () => {
    const { repository, worktree } = setUp('tether/one');
    const other: Worktree = {
      ...worktree,
      path: path.join(path.dirname(worktree.path), 'ses_2'),
      branch: 'tether/two',
    };
    const oneDir = await createWorktree(worktree);
    const twoDir = await createWorktree(other);
    writeFileSync(path.join(worktree.path, 'notes.txt'), 'one\nTWO by one\n');
    writeFileSync(path.join(other.path, 'notes.txt'), 'one\nTWO by two\n');
    const one = await commitWorktree({ ...worktree, gitDir: oneDir }, AUTHOR, 'one');
    const two = await commitWorktree({ ...other, gitDir: twoDir }, AUTHOR, 'two');
    const merged = await mergeIntoCheckout(repository, one.head, 'Merge tether/one');
    expect(merged).toEqual({ kind: 'merged', how: 'fast_forward', into: 'main', commit: one.head });
    expect(readFileSync(path.join(repository, 'notes.txt'), 'utf8')).toBe('one\nTWO by one\n');
    const before = gitIn(repository, 'rev-parse', 'HEAD');
    const conflict = await mergeIntoCheckout(repository, two.head, 'Merge tether/two');
    expect(conflict).toEqual({ kind: 'conflict', into: 'main', files: ['notes.txt'] });
    expect(gitIn(repository, 'rev-parse', 'HEAD')).toBe(before);
    expect(gitIn(repository, 'status', '--porcelain')).toBe('');
    expect(await mergeIntoCheckout(repository, one.head, 'again')).toMatchObject({
      kind: 'merged',
      how: 'already_merged',
    });
  });

  it('makes a merge commit when the checkout moved, and refuses a checkout it would overwrite', async () => {
    const { repository, worktree } = setUp();
    const gitDir = await createWorktree(worktree);
    writeFileSync(path.join(worktree.path, 'new.txt'), 'from the run\n');
    const result = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');
    writeFileSync(path.join(repository, 'new.txt'), 'mine, not committed\n');
    const refused = await mergeIntoCheckout(repository, result.head, 'Merge');
    expect(refused).toMatchObject({ kind: 'refused', files: ['new.txt'] });
    expect(readFileSync(path.join(repository, 'new.txt'), 'utf8')).toBe('mine, not committed\n');
    writeFileSync(path.join(repository, 'new.txt'), '');
    gitIn(repository, 'clean', '-fq');
    writeFileSync(path.join(repository, 'README.md'), 'hello, edited by the user\n');
    gitIn(repository, 'commit', '-qam', 'user edit');
    const merged = await mergeIntoCheckout(repository, result.head, 'Merge tether/abc12345');
    expect(merged).toMatchObject({ kind: 'merged', how: 'merge_commit', into: 'main' });
    expect(gitIn(repository, 'log', '-1', '--format=%P')).toContain(result.head);
    expect(readFileSync(path.join(repository, 'new.txt'), 'utf8')).toBe('from the run\n');
  });

  it('says why when git cannot write the merge commit, and leaves no merge begun', async () => {
    const { repository, worktree } = setUp();
    const gitDir = await createWorktree(worktree);
    writeFileSync(path.join(worktree.path, 'new.txt'), 'from the run\n');
    const result = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');
    writeFileSync(path.join(repository, 'README.md'), 'hello, edited by the user\n');
    gitIn(repository, 'commit', '-qam', 'user edit');
    const head = gitIn(repository, 'rev-parse', 'HEAD');
    // The user signs commits, and gpg cannot sign now (no agent, no terminal for a pin).
    const gpg = path.join(path.dirname(repository), 'gpg.sh');
    writeFileSync(gpg, '#!/bin/sh\necho "gpg: signing failed: No pinentry" >&2\nexit 2\n', {
      mode: 0o755,
    });
    gitIn(repository, 'config', 'commit.gpgSign', 'true');
    gitIn(repository, 'config', 'gpg.program', gpg);

    const outcome = await mergeIntoCheckout(repository, result.head, 'Merge');
    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('gpg failed to sign') as unknown,
    });
    expect(gitIn(repository, 'rev-parse', 'HEAD')).toBe(head);
    expect(gitIn(repository, 'status', '--porcelain')).toBe('');
  });

  it('is removed with its branch, or keeps the branch', async () => {
    const { repository, worktree } = setUp();
    await createWorktree(worktree);
    await removeWorktree(worktree, false);
    expect(existsSync(worktree.path)).toBe(false);
    expect(gitIn(repository, 'branch', '--list', worktree.branch)).toContain(worktree.branch);
    // Made again from the kept branch, then discarded whole.
    await createWorktree(worktree);
    await removeWorktree(worktree, true);
    expect(gitIn(repository, 'branch', '--list', worktree.branch)).toBe('');
    expect(gitIn(repository, 'worktree', 'list', '--porcelain')).not.toContain(worktree.path);
  });
});
