/**
 * A run in its own git worktree (docs/protocol.md §6.2 `run.integrate`, `run.review`;
 * docs/worktrees.md): the session's branch, what a run's end committed on it, and the
 * review the phone answers with one of merge, keep or discard.
 */
import { z } from 'zod/mini';
import { Millis } from './primitives.js';
import { GitObjectId, IntegrateAction } from './worktree-args.js';

const Count = z.int().check(z.nonnegative());

/**
 * What became of a session's worktree: `active` while runs may work in it; `merged`,
 * `kept` (the branch stays, the folder is gone) or `discarded` once answered.
 */
const WorktreeState = z.enum(['active', 'merged', 'kept', 'discarded']);

/**
 * One file the branch changed since its base. Its fields spread (not `z.extend`, whose code
 * would join the app's first load: zod's modules are in it).
 */
const WORKTREE_FILE = {
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'copied']),
  from: z.optional(z.string()),
  additions: Count,
  deletions: Count,
  binary: z.boolean(),
};
const WorktreeFile = z.looseObject(WORKTREE_FILE);

const WorktreeStat = z.looseObject({ files: Count, additions: Count, deletions: Count });

/**
 * `run.result`: what the host committed when a run in a worktree ended. `treeDigest` is
 * the head's git tree id, the exact files a merge brings; `files` lists at most 1,000
 * (`stat` counts them all).
 */
export const RunResult = z.looseObject({
  branch: z.string(),
  base: GitObjectId,
  head: GitObjectId,
  treeDigest: GitObjectId,
  committed: z.boolean(),
  files: z.array(WorktreeFile),
  stat: WorktreeStat,
});
export type RunResult = z.infer<typeof RunResult>;

/** The session's worktree as `sessions` and snapshots show it. */
export const SessionWorktree = z.looseObject({
  branch: z.string(),
  base: GitObjectId,
  state: WorktreeState,
  head: z.nullable(GitObjectId),
  treeDigest: z.nullable(GitObjectId),
});
export type SessionWorktree = z.infer<typeof SessionWorktree>;

/** `run.integrate`'s answer: the state it left, and what a merge made. */
export const IntegrateResult = z.looseObject({
  state: z.enum(['merged', 'kept', 'discarded']),
  into: z.optional(z.string()),
  commit: z.optional(GitObjectId),
  how: z.optional(z.enum(['fast_forward', 'merge_commit', 'already_merged'])),
});
export type IntegrateResult = z.infer<typeof IntegrateResult>;

/** `run.integrated`: the answer applied, by whom, and what a merge made. */
export const RunIntegrated = z.looseObject({
  action: IntegrateAction,
  treeDigest: GitObjectId,
  by: z.string(),
  into: z.optional(z.string()),
  commit: z.optional(GitObjectId),
  how: z.optional(z.enum(['fast_forward', 'merge_commit', 'already_merged'])),
});

/**
 * `run.review`: the session's branch against its base, with each file's diff inline
 * while the answer stays small (`diff` absent past the bound: `diffCut`), and the branch
 * of the user's checkout a merge would go into (null when it is not on a branch).
 */
export const RunReview = z.looseObject({
  sessionId: z.string(),
  branch: z.string(),
  base: GitObjectId,
  state: WorktreeState,
  head: z.nullable(GitObjectId),
  treeDigest: z.nullable(GitObjectId),
  into: z.nullable(z.string()),
  /** Whether a run of the session is still working: no answer is taken until it ends. */
  busy: z.boolean(),
  files: z.array(
    z.looseObject({
      ...WORKTREE_FILE,
      diff: z.optional(z.string()),
      diffCut: z.optional(z.boolean()),
    }),
  ),
  stat: WorktreeStat,
  at: Millis,
});
export type RunReview = z.infer<typeof RunReview>;
