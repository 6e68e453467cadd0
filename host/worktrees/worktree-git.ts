/**
 * A run's own git worktree: made from the user's repository on a new branch, its state
 * committed by the host when a run ends, compared with where it started, and removed.
 * Every command is the host's own, hardened (run-git.ts); the run itself never moves a
 * branch: inside its sandbox git is read-only.
 */
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { copyFile, readdir, readFile, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { removeTree } from '../sandbox/index.js';
import { git, GitError, gitSync, runGit } from './run-git.js';
import type { Worktree, WorktreeCommit, WorktreeFile, WorktreeSource } from './types.js';

/** A reason the workspace cannot have worktrees, in a sentence, or where to start. */
export type SourceCheck = { ok: true; source: WorktreeSource } | { ok: false; reason: string };

/**
 * Whether `workspace` (a real path) can have a worktree, and the commit it starts from:
 * `base` (a branch, tag or commit) or `HEAD`. Quick and synchronous (two git questions):
 * asked inside the transaction that records the submit.
 */
export function checkWorktreeSource(workspace: string, base: string | undefined): SourceCheck {
  const top = gitSync({ folder: workspace }, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) {
    const missing = top.stderr.includes('not installed');
    return {
      ok: false,
      reason: missing
        ? 'git is not installed on the host, so a run cannot have its own worktree'
        : `${workspace} is not a git repository, so a run cannot have its own worktree there`,
    };
  }
  if (path.resolve(top.stdout.trim()) !== workspace) {
    return {
      ok: false,
      reason: `${workspace} is a folder inside the repository ${top.stdout.trim()}: a run's worktree is made of a whole repository, so make its top folder the workspace`,
    };
  }
  const named = base ?? 'HEAD';
  const commit = gitSync({ folder: workspace }, [
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${named}^{commit}`,
  ]);
  if (commit.code !== 0) {
    return {
      ok: false,
      reason:
        base === undefined
          ? `${workspace} has no commit yet: commit once, then a run can work in its own worktree`
          : `${base} is not a branch, tag or commit of ${workspace}`,
    };
  }
  const common = gitSync({ folder: workspace }, [
    'rev-parse',
    '--path-format=absolute',
    '--git-common-dir',
  ]);
  if (common.code !== 0)
    return { ok: false, reason: `git cannot read ${workspace}: ${common.stderr.trim()}` };
  return {
    ok: true,
    source: { repository: workspace, commonDir: common.stdout.trim(), base: commit.stdout.trim() },
  };
}

/** `wanted`, or `wanted-2`, `-3`… when a branch of that name exists in `repository`. */
export function freeBranch(repository: string, wanted: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? wanted : `${wanted}-${n}`;
    const found = gitSync({ folder: repository }, [
      'rev-parse',
      '--verify',
      '--quiet',
      `refs/heads/${name}`,
    ]);
    if (found.code !== 0) return name;
  }
}

/**
 * Makes the worktree at `worktree.path` on its new branch from its base, or finds the one
 * made before (a host that stopped after git made it): idempotent. Returns its own git
 * folder (`<common>/worktrees/<name>`), found in the repository's common folder, never
 * from the worktree's `.git`: the run could have made that name a repository of its own.
 */
export async function createWorktree(worktree: Worktree): Promise<string> {
  const repository = { folder: worktree.repository };
  const listed = await listedWorktrees(worktree.repository);
  if (!listed.includes(worktree.path)) {
    // A folder git does not know (a start cut short): made again from the branch or base.
    rmSync(worktree.path, { recursive: true, force: true });
    await git(repository, ['worktree', 'prune']);
    mkdirSync(path.dirname(worktree.path), { recursive: true, mode: 0o700 });
    const branchExists =
      (
        await runGit(repository, [
          'rev-parse',
          '--verify',
          '--quiet',
          `refs/heads/${worktree.branch}`,
        ])
      ).code === 0;
    await git(
      repository,
      branchExists
        ? ['worktree', 'add', '--quiet', worktree.path, worktree.branch]
        : ['worktree', 'add', '--quiet', '-b', worktree.branch, worktree.path, worktree.base],
    );
  }
  return worktreeGitDir(worktree);
}

/**
 * The worktree's own git folder: the one in `<common>/worktrees/` whose `gitdir` (written
 * by git, in a folder no run can write) names the worktree's `.git`.
 */
async function worktreeGitDir(worktree: Worktree): Promise<string> {
  const folders = path.join(worktree.commonDir, 'worktrees');
  const dotGit = path.join(realpathSync(worktree.path), '.git');
  for (const name of await readdir(folders)) {
    const named = await readFile(path.join(folders, name, 'gitdir'), 'utf8').catch(() => '');
    if (path.resolve(folders, name, named.trim()) === dotGit) return path.join(folders, name);
  }
  throw new Error(`git has no record of the worktree ${worktree.path} in ${worktree.commonDir}`);
}

/** The folders of the repository's worktrees, as git lists them. */
async function listedWorktrees(repository: string): Promise<string[]> {
  const listing = await git({ folder: repository }, ['worktree', 'list', '--porcelain']);
  return listing
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => path.resolve(line.slice('worktree '.length)));
}

/**
 * Commits everything in the worktree (tracked, new, deleted; `.gitignore` respected) on
 * its branch, by `author`, with `message`, unless its tree is the branch's already. Built
 * with git's plumbing in a private index: no hook runs and the branch moves by one
 * compare-and-swap, so a host killed here leaves one commit or none. Idempotent.
 */
export async function commitWorktree(
  worktree: Worktree & { gitDir: string },
  author: { name: string; email: string },
  message: string,
): Promise<WorktreeCommit> {
  const place = { gitDir: worktree.gitDir, workTree: worktree.path };
  const ref = `refs/heads/${worktree.branch}`;
  const parent = await git(place, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const index = path.join(worktree.gitDir, 'tether-index');
  const liveIndex = path.join(worktree.gitDir, 'index');
  // Starting from the worktree's own index lets git skip files whose stat is unchanged.
  await copyIndex(liveIndex, index).catch(() => rmSync(index, { force: true }));
  const env = { GIT_INDEX_FILE: index };
  if (!existsSync(index)) await git(place, ['read-tree', parent], { env });
  await git(place, ['add', '--all', '--', '.'], { env });
  const tree = await git(place, ['write-tree'], { env });
  const parentTree = await git(place, ['rev-parse', `${parent}^{tree}`]);
  if (tree === parentTree) {
    rmSync(index, { force: true });
    return { head: parent, tree, committed: false };
  }
  const identity = {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
  const head = await git(place, ['commit-tree', tree, '-p', parent, '-m', message], {
    env: identity,
  });
  await git(place, ['update-ref', '-m', 'tether: run result', ref, head, parent]);
  // The worktree's index now matches its new head: `git status` inside reads clean.
  renameSync(index, liveIndex);
  return { head, tree, committed: true };
}

/**
 * Copies a git index with its modification time. Git trusts an entry whose stat is
 * unchanged unless the entry is no older than the index file itself ("racily clean"), and
 * then compares the content. A copy made now would be newer than a file rewritten, with
 * the same size, in the second the index was written: git would skip that change and the
 * commit would lose it. The time is rounded down, which only makes git look at more files.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const { atime, mtimeMs } = await stat(from);
  await copyFile(from, to);
  await utimes(to, atime, new Date(Math.floor(mtimeMs)));
}

/** The tree of the branch's head commit, or null when the branch is gone. */
export async function branchTree(repository: string, branch: string): Promise<string | null> {
  const found = await runGit({ folder: repository }, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${branch}^{tree}`,
  ]);
  return found.code === 0 ? found.stdout.trim() : null;
}

/** Most files a change lists; more are counted in `stat` only. */
const MAX_LISTED_FILES = 1000;

/** The files `head` changed since `base`, with their line counts (renames found). */
export async function changedFiles(
  repository: string,
  base: string,
  head: string,
): Promise<{
  files: WorktreeFile[];
  stat: { files: number; additions: number; deletions: number };
}> {
  const place = { folder: repository };
  const range = [base, head];
  const statusText = await git(place, [
    'diff',
    '--no-ext-diff',
    '--no-textconv',
    '-M',
    '-z',
    '--name-status',
    ...range,
  ]);
  const numstatText = await git(place, [
    'diff',
    '--no-ext-diff',
    '--no-textconv',
    '-M',
    '-z',
    '--numstat',
    ...range,
  ]);
  const statuses = parseNameStatus(statusText);
  const counts = parseNumstat(numstatText);
  const files = statuses.map((entry, i): WorktreeFile => {
    const count = counts[i];
    return {
      path: entry.path,
      status: entry.status,
      ...(entry.from === undefined ? {} : { from: entry.from }),
      additions: count?.additions ?? 0,
      deletions: count?.deletions ?? 0,
      binary: count?.binary ?? false,
    };
  });
  const stat = {
    files: files.length,
    additions: files.reduce((sum, file) => sum + file.additions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
  };
  return { files: files.slice(0, MAX_LISTED_FILES), stat };
}

const STATUS_NAMES: Record<string, WorktreeFile['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'modified',
};

function parseNameStatus(
  text: string,
): { status: WorktreeFile['status']; path: string; from?: string }[] {
  const fields = text.split('\0');
  const entries: { status: WorktreeFile['status']; path: string; from?: string }[] = [];
  for (let i = 0; i < fields.length;) {
    const code = fields[i] ?? '';
    if (code === '') break;
    const status = STATUS_NAMES[code[0] ?? ''] ?? 'modified';
    if (code[0] === 'R' || code[0] === 'C') {
      entries.push({ status, from: fields[i + 1] ?? '', path: fields[i + 2] ?? '' });
      i += 3;
    } else {
      entries.push({ status, path: fields[i + 1] ?? '' });
      i += 2;
    }
  }
  return entries;
}

function parseNumstat(text: string): { additions: number; deletions: number; binary: boolean }[] {
  const fields = text.split('\0');
  const counts: { additions: number; deletions: number; binary: boolean }[] = [];
  for (let i = 0; i < fields.length;) {
    const head = fields[i] ?? '';
    if (head === '') break;
    const [added = '', deleted = '', name = ''] = head.split('\t');
    const binary = added === '-';
    counts.push({
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      binary,
    });
    // A rename's entry is "a\td\t" then the old and the new name as fields of their own.
    i += name === '' ? 3 : 1;
  }
  return counts;
}

/** Most bytes of diff text a review reads: it shows far less (docs/worktrees.md). */
const MAX_DIFF_BYTES = 8 * 1024 * 1024;

/**
 * Each changed file's diff between two commits, in the order `changedFiles` lists them
 * (the same comparison), as git prints it: no external diff, no text conversion. A file
 * that became a symlink or stopped being one is printed by git as a deletion and a
 * creation under the same header: both are that one file's diff. Past
 * {@link MAX_DIFF_BYTES} of diff text git is stopped: the files from the one it was
 * printing on have none.
 */
export async function worktreeDiffs(
  repository: string,
  base: string,
  head: string,
): Promise<string[]> {
  const output = await runGit(
    { folder: repository },
    ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '-M', base, head],
    { maxBytes: MAX_DIFF_BYTES },
  );
  if (output.code !== 0 && output.cut !== true) throw new GitError(['diff'], output);
  const diffs: string[] = [];
  for (const part of output.stdout === '' ? [] : output.stdout.split(/^(?=diff --git )/m)) {
    const last = diffs.length - 1;
    if (last >= 0 && headerOf(diffs[last] ?? '') === headerOf(part)) diffs[last] += part;
    else diffs.push(part);
  }
  // Cut short, the last diff is not whole.
  if (output.cut === true) diffs.pop();
  return diffs;
}

function headerOf(diff: string): string {
  return diff.slice(0, diff.indexOf('\n'));
}

/** Removes the worktree's folder and git's record of it; the branch too with `deleteBranch`. */
export async function removeWorktree(worktree: Worktree, deleteBranch: boolean): Promise<void> {
  const repository = { folder: worktree.repository };
  if (existsSync(worktree.path)) {
    const removed = await runGit(repository, [
      'worktree',
      'remove',
      '--force',
      '--force',
      worktree.path,
    ]);
    if (removed.code !== 0) {
      // A folder the run left without permissions, or nested past what a path can name,
      // stops git: removed as a sandbox's folder is.
      removeTree(worktree.path);
      if (existsSync(worktree.path)) {
        throw new Error(`cannot remove the worktree ${worktree.path}: ${removed.stderr.trim()}`);
      }
    }
  }
  await git(repository, ['worktree', 'prune']);
  if (!deleteBranch) return;
  const deleted = await runGit(repository, ['branch', '-D', worktree.branch]);
  if (deleted.code !== 0 && !deleted.stderr.includes('not found')) {
    throw new GitError(['branch'], deleted);
  }
}
