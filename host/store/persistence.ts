/**
 * Telling a failing disk from a failing command: which errors mean the store cannot
 * commit (disk full, I/O error, a database that cannot grow or be written), and the
 * state the store keeps while that lasts.
 */
import { TetherError, errorMessage } from '../../protocol/index.js';

/** Whether commits work. After a failed commit the store refuses writes until it recovers. */
export type PersistenceState =
  | { ok: true }
  | {
      ok: false;
      /** When the first failing commit happened (ms since the epoch). */
      since: number;
      /** What failed, for people: the SQLite or errno code and its text. */
      message: string;
    };

export type PersistenceListener = (state: PersistenceState) => void;

const SQLITE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|NOMEM|PROTOCOL)/;
/** Errno codes of a file write that failed because of the disk, not the caller. */
// ESTALE also stands for a database file removed under the host (database-file-guard.ts).
const ERRNO_CODES = new Set(['ENOSPC', 'EIO', 'EROFS', 'EDQUOT', 'ESTALE']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for an error that says the disk or the database file cannot take a commit. */
export function isDiskFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) return false;
  return SQLITE_CODES.test(code) || ERRNO_CODES.has(code);
}

/** `SQLITE_FULL: database or disk is full`, the failure as the log and remotes see it. */
export function describeDiskFailure(error: unknown): string {
  const text = errorMessage(error);
  return `${codeOf(error) ?? 'error'}: ${text}`;
}

/** The answer to every command while commits fail (docs/protocol.md §6.2: retryable). */
export function persistenceFailedError(state: PersistenceState, cause?: unknown): TetherError {
  const why = state.ok ? '' : ` (${state.message})`;
  return new TetherError('persistence_failed', `the store cannot commit${why}: nothing was done`, {
    ...(cause === undefined ? {} : { cause }),
    ...(state.ok ? {} : { details: { since: state.since } }),
  });
}

/** True for the store's refusal: a commit that failed, or one refused while commits fail. */
export function isPersistenceFailed(error: unknown): boolean {
  return error instanceof TetherError && error.code === 'persistence_failed';
}
