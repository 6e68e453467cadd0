/**
 * Merging a run's reviewed commit into the branch checked out in the user's workspace,
 * with git's own merge: a fast-forward when the branch has not moved, a merge commit
 * otherwise. A conflict is found before anything is touched (`git merge-tree`) and
 * changes nothing; a checkout whose uncommitted changes the merge would overwrite is
 * refused by git itself, and said so; a merge the host started and git stopped is undone.
 */
import { existsSync } from 'node:fs';
import { git, runGit, type GitOutput } from './run-git.js';
import type { MergeOutcome } from './types.js';

/** Merges `head` into the checkout of `repository`; `message` names a merge commit. */
export async function mergeIntoCheckout(
  repository: string,
  head: string,
  message: string,
): Promise<MergeOutcome> {
  const place = { folder: repository };
  const into = await currentBranch(repository);
  if (into === null) {
    return {
      kind: 'refused',
      reason: `the checkout in ${repository} is not on a branch (a detached HEAD): check out the branch to merge into, then merge again`,
    };
  }
  const mergeHead = await git(place, [
    'rev-parse',
    '--path-format=absolute',
    '--git-path',
    'MERGE_HEAD',
  ]);
  if (existsSync(mergeHead)) {
    return {
      kind: 'refused',
      reason: `a merge is in progress in ${repository}: finish or abort it, then merge again`,
    };
  }
  const current = await git(place, ['rev-parse', '--verify', 'HEAD^{commit}']);
  if (await isAncestor(repository, head, current)) {
    return { kind: 'merged', how: 'already_merged', into, commit: current };
  }
  const fastForward = await isAncestor(repository, current, head);
  if (!fastForward) {
    const trial = await runGit(place, [...MERGE_TRIAL, current, head]);
    if (trial.code === 1) return { kind: 'conflict', into, files: trialFiles(trial.stdout) };
    if (trial.code !== 0) return refusedBy(trial, repository);
  }
  const merged = await runGit(
    place,
    fastForward
      ? ['merge', '--ff-only', '--no-edit', '--quiet', head]
      : ['merge', '--no-ff', '--no-edit', '--quiet', '-m', message, head],
  );
  if (merged.code !== 0) {
    if (existsSync(mergeHead)) {
      // Git stopped with the merge begun: the checkout moved between the trial and the
      // merge (a conflict now), or the merge commit could not be written (a signing
      // program that failed). Either way what this merge began is undone.
      await runGit(place, ['merge', '--abort']);
      const files = await conflictedFiles(repository, head);
      return files.length > 0 ? { kind: 'conflict', into, files } : refusedBy(merged, repository);
    }
    return refusedBy(merged, repository);
  }
  const commit = await git(place, ['rev-parse', 'HEAD']);
  return { kind: 'merged', how: fastForward ? 'fast_forward' : 'merge_commit', into, commit };
}

/** The branch checked out in `repository`, or null when its HEAD is detached. */
export async function currentBranch(repository: string): Promise<string | null> {
  const branch = await runGit({ folder: repository }, [
    'symbolic-ref',
    '--quiet',
    '--short',
    'HEAD',
  ]);
  return branch.code === 0 ? branch.stdout.trim() : null;
}

async function isAncestor(repository: string, ancestor: string, of: string): Promise<boolean> {
  const found = await runGit({ folder: repository }, ['merge-base', '--is-ancestor', ancestor, of]);
  return found.code === 0;
}

/** The files a trial merge of `head` into the checkout's branch finds in conflict. */
async function conflictedFiles(repository: string, head: string): Promise<string[]> {
  const trial = await runGit({ folder: repository }, [...MERGE_TRIAL, 'HEAD', head]);
  return trialFiles(trial.stdout);
}

/**
 * A trial merge that writes only objects: its tree, then the files in conflict, each
 * ended by a NUL (`-z`: a name as it is, never quoted, whatever characters it holds).
 */
const MERGE_TRIAL: readonly string[] = [
  'merge-tree',
  '--write-tree',
  '-z',
  '--name-only',
  '--no-messages',
];

/** The conflicting files a trial merge's output lists after its tree. */
function trialFiles(stdout: string): string[] {
  return stdout
    .split('\0')
    .slice(1)
    .filter((name) => name !== '');
}

/**
 * Git refused before changing anything: the uncommitted changes it would overwrite (their
 * files listed, as git lists them with a tab), or what else it said.
 */
function refusedBy(output: GitOutput, repository: string): MergeOutcome {
  const said = `${output.stderr}\n${output.stdout}`;
  const files = said
    .split('\n')
    .filter((line) => line.startsWith('\t'))
    .map((line) => line.trim());
  if (/would be overwritten|untracked working tree files/.test(said)) {
    return {
      kind: 'refused',
      reason: `uncommitted changes in ${repository} would be overwritten by the merge: commit or stash them, then merge again`,
      files,
    };
  }
  const last = said.trim().split('\n').slice(-2).join(' ');
  return { kind: 'refused', reason: `git did not merge: ${last}` };
}
