export {
  checkWorktreeSource,
  commitWorktree,
  createWorktree,
  branchTree,
  changedFiles,
  fileDiff,
  removeWorktree,
} from './worktree-git.js';
export type { SourceCheck } from './worktree-git.js';
export { mergeIntoCheckout } from './merge-into-checkout.js';
export type {
  MergeOutcome,
  Worktree,
  WorktreeCommit,
  WorktreeFile,
  WorktreeSource,
} from './types.js';
