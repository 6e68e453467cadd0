/**
 * host/worktrees/: a run's own git worktree (docs/worktrees.md), made, committed,
 * compared, merged and removed by the host's own hardened git commands.
 */
export {
  branchTree,
  changedFiles,
  checkWorktreeSource,
  commitWorktree,
  createWorktree,
  freeBranch,
  removeWorktree,
  worktreeDiffs,
} from './worktree-git.js';
export { currentBranch, mergeIntoCheckout } from './merge-into-checkout.js';
export type { WorktreeSource } from './types.js';
