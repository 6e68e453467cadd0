/**
 * The isolation `run.submit` asks for (docs/worktrees.md), checked: a new session's
 * worktree source, or a follow-up's agreement with the worktree its session has.
 */
import { TetherError, type OpArgs } from '../../protocol/index.js';
import type { Store } from '../store/index.js';
import type { WorkspaceRef } from './types.js';
import { checkWorktreeSource, type WorktreeSource } from '../worktrees/index.js';

/**
 * The repository and base commit of a new session's worktree, when the submit or the
 * workspace's default asks for one; a workspace that cannot have one refuses it, saying why.
 * `worktreesDir` null: the host keeps no worktrees.
 */
export function worktreeSourceOf(
  worktreesDir: string | null,
  workspace: WorkspaceRef,
  args: OpArgs<'run.submit'>,
): { source: WorktreeSource } | null {
  const isolation = args.isolation ?? workspace.isolation ?? 'none';
  if (isolation === 'none') {
    if (args.base !== undefined) throw isolationError('base', 'base needs isolation "worktree"');
    return null;
  }
  if (worktreesDir === null) {
    throw isolationError('isolation', 'this host keeps no worktrees (it has no data directory)');
  }
  const checked = checkWorktreeSource(workspace.path, args.base);
  if (!checked.ok) {
    throw isolationError(args.base === undefined ? 'isolation' : 'base', checked.reason);
  }
  return { source: checked.source };
}

/** A follow-up names no isolation of its own, and goes on only in a worktree still open. */
export function checkFollowUpIsolation(
  store: Store,
  sessionId: string,
  args: OpArgs<'run.submit'>,
): void {
  const worktree = store.worktrees.get(sessionId);
  if (args.base !== undefined) {
    throw isolationError('base', "a worktree's base is chosen when its session starts");
  }
  const current = worktree === undefined ? 'none' : 'worktree';
  if (args.isolation !== undefined && args.isolation !== current) {
    throw isolationError(
      'isolation',
      worktree === undefined
        ? 'the session works in its workspace: isolation is chosen when a session starts'
        : 'the session works in its own worktree: a follow-up goes on there',
    );
  }
  if (worktree !== undefined && worktree.state !== 'active') {
    throw new TetherError(
      'invalid_state',
      `the session's worktree was ${worktree.state === 'kept' ? 'kept as its branch' : worktree.state}: start a new task`,
      { details: { state: worktree.state } },
    );
  }
}

function isolationError(field: 'isolation' | 'base', message: string): TetherError {
  return new TetherError('invalid_request', message, {
    details: { issues: [{ path: field, message }] },
  });
}
