/**
 * The words of a worktree run's commands (docs/worktrees.md): `run.submit`'s isolation, a
 * git object id, `run.integrate`'s action. Apart from protocol/worktree.ts, whose review
 * schemas only the app's review chunk needs: the first load carries these alone.
 */
import { z } from 'zod/mini';

/** A git object id: 40 hex digits (SHA-1 repositories) or 64 (SHA-256). */
export const GitObjectId = z
  .string()
  .check(z.regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'expected 40 or 64 hex digits'));

/**
 * Where a session's runs work: the workspace itself, or a worktree of it on a branch of
 * its own (`run.submit`'s `isolation`; a workspace's default in `host.info`).
 */
export const Isolation = z.enum(['none', 'worktree']);
export type Isolation = z.infer<typeof Isolation>;

/** The answer to a review: merge into the checkout's branch, keep the branch, or discard. */
export const IntegrateAction = z.enum(['merge', 'keep', 'discard']);
export type IntegrateAction = z.infer<typeof IntegrateAction>;
