/**
 * The contracts of a run's own worktree (docs/worktrees.md): where it comes from, where it
 * is, what a run's end committed, and what a merge into the user's checkout did.
 */

/** The repository a worktree is made from and the commit it starts at. */
export interface WorktreeSource {
  /** Real path of the user's workspace: the repository's top folder. */
  repository: string;
  /** The repository's common git folder (absolute). */
  commonDir: string;
  /** The commit the branch starts from (full id). */
  base: string;
}

/** A session's worktree, as the host records it. */
export interface Worktree extends WorktreeSource {
  /** The worktree's folder, in the data directory's `worktrees/`. */
  path: string;
  /** The branch it works on, `tether/<short run id>`. */
  branch: string;
}

/** What committing a worktree's state did. */
export interface WorktreeCommit {
  /** The branch's head after it. */
  head: string;
  /** That head's tree id: the digest of the exact files a merge would bring. */
  tree: string;
  /** False when the files were those of the head already: no commit was made. */
  committed: boolean;
}

/** One file a worktree's branch changed since its base. */
export type WorktreeFile = {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';
  /** The old name of a renamed or copied file. */
  from?: string;
  additions: number;
  deletions: number;
  binary: boolean;
};

/** What a merge into the user's checkout did, or why it changed nothing. */
export type MergeOutcome =
  | {
      kind: 'merged';
      how: 'fast_forward' | 'merge_commit' | 'already_merged';
      into: string;
      commit: string;
    }
  | { kind: 'conflict'; into: string; files: string[] }
  | { kind: 'refused'; reason: string; files?: string[] };
