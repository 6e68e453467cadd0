/**
 * Runs older than a host's snapshot, paged in through `runs.list` for the runs list.
 */
import { isTerminalRunState, type Run, errorMessage } from '#protocol';
import type { HostConnection } from '#client';

/**
 * Runs older than the snapshot's recent ones, paged in through `runs.list` (newest first)
 * for as long as the page lives. Only final runs are kept: every active run is in the
 * snapshot, and a final run no longer changes.
 */
export interface OlderRuns {
  runs: readonly Run[];
  /** The cursor of the next page; undefined before the first page. */
  next: string | undefined;
  /** The host has no older runs left to page in. */
  done: boolean;
  loading: boolean;
  /** Why the last page failed, for people. */
  error: string | undefined;
}

/** Runs asked for in each `runs.list` page. */
const OLDER_PAGE = 100;

export const NO_OLDER_RUNS: OlderRuns = {
  runs: [],
  next: undefined,
  done: false,
  loading: false,
  error: undefined,
};

/** `older` with the next page added, or with why it failed (it never rejects). */
export async function withNextPage(
  connection: HostConnection,
  older: OlderRuns,
): Promise<OlderRuns> {
  const { next } = older;
  try {
    const page = await connection.request('runs.list', {
      limit: OLDER_PAGE,
      ...(next === undefined ? {} : { before: next }),
    });
    return {
      runs: [...older.runs, ...page.runs.filter((run) => isTerminalRunState(run.state))],
      next: page.next,
      done: page.next === undefined,
      loading: false,
      error: undefined,
    };
  } catch (error) {
    const message = errorMessage(error);
    return { ...older, loading: false, error: message };
  }
}
