/**
 * A session's own worktree as a remote holds it (`SessionWorktree` of protocol/worktree.ts,
 * docs/worktrees.md), read without its schema so the first load need not carry it: how
 * its events change it, and which runs have a branch waiting for the user's review.
 */
import { isTerminalRunState, type Run, type Session } from '../../protocol/index.js';
import type { HostState } from './host-state.js';

/** A session's worktree: its branch, base, state, and what its last run's end committed. */
export interface HeldWorktree {
  branch: string;
  base: string;
  state: 'active' | 'merged' | 'kept' | 'discarded';
  head: string | null;
  treeDigest: string | null;
}

/** The session's worktree, when it has one (a record from a host that keeps them). */
export function worktreeOf(session: Session | undefined): HeldWorktree | undefined {
  const held = session?.['worktree'] as HeldWorktree | undefined;
  return typeof held?.branch === 'string' ? held : undefined;
}

/** The state `run.integrated`'s action leaves. */
export const INTEGRATED_STATES: Readonly<Record<string, HeldWorktree['state']>> = {
  merge: 'merged',
  keep: 'kept',
  discard: 'discarded',
};

/**
 * The session after its worktree's event: `run.result` moves its head (and makes the
 * record, for a session this remote saw made), `run.integrated` answers it.
 */
export function worktreeAfter(
  session: Session,
  type: string,
  payload: Record<string, unknown>,
): Session | undefined {
  const held = worktreeOf(session);
  const { branch, base, head, treeDigest, action } = payload;
  const next =
    type === 'run.result'
      ? { state: 'active', ...held, branch, base, head, treeDigest }
      : held && { ...held, state: INTEGRATED_STATES[String(action)] };
  return next && { ...session, worktree: next };
}

/**
 * The runs whose branch waits for the user's answer: the newest run known of each session
 * whose worktree is open, has commits past its base, and no run working or waiting.
 */
export function runsToReview(state: HostState): Set<string> {
  const newest: Record<string, Run> = {};
  for (const run of Object.values(state.runs)) {
    const last = newest[run.sessionId];
    if (last === undefined || run.createdAt > last.createdAt) newest[run.sessionId] = run;
  }
  const ready = new Set<string>();
  for (const run of Object.values(newest)) {
    const session = state.sessions[run.sessionId];
    const worktree = worktreeOf(session);
    if (
      worktree?.state === 'active' &&
      worktree.head !== worktree.base &&
      worktree.head !== null &&
      session!.activeRunId === null &&
      isTerminalRunState(run.state)
    ) {
      ready.add(run.id);
    }
  }
  return ready;
}
