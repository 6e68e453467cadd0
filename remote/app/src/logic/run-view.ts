/**
 * What the runs list derives from a host's state: order, whether older runs may exist,
 * state labels, times in words. (The run screen's own: logic/run-screen-view.ts.)
 */
import { isActiveRunState, isTerminalRunState, type Run, type RunState } from '#protocol';

/** Active runs first (running, waiting, cancelling, then queued), newest first within each. */
export function sortRuns(runs: readonly Run[]): Run[] {
  const rank = (run: Run) => (isActiveRunState(run.state) ? 0 : run.state === 'queued' ? 1 : 2);
  return [...runs].sort((a, b) => rank(a) - rank(b) || b.createdAt - a.createdAt);
}

/** How many final runs an unscoped snapshot lists at most (docs/protocol.md §6.3: "recent 50"). */
export const SNAPSHOT_RECENT_RUNS = 50;

/**
 * The runs list: the host state's runs and the older ones paged in, each once (the state's
 * record wins: it follows events), in {@link sortRuns} order.
 */
export function listedRuns(runs: Readonly<Record<string, Run>>, older: readonly Run[]): Run[] {
  const extra = older.filter((run) => runs[run.id] === undefined);
  return sortRuns([...Object.values(runs), ...extra]);
}

/**
 * Whether the host may hold runs not listed yet: no page said it was the last, and some
 * page pointed further, or the state holds as many final runs as a snapshot lists at
 * most (with fewer, the snapshot listed them all).
 */
export function mayHaveOlderRuns(
  runs: Readonly<Record<string, Run>>,
  older: { next: string | undefined; done: boolean },
): boolean {
  if (older.done) return false;
  if (older.next !== undefined) return true;
  let final = 0;
  for (const run of Object.values(runs)) if (isTerminalRunState(run.state)) final++;
  return final >= SNAPSHOT_RECENT_RUNS;
}

/** A run state as a short label. */
export const RUN_STATE_LABELS: Record<RunState, string> = {
  queued: 'queued',
  running: 'running',
  waiting_for_approval: 'needs approval',
  cancelling: 'cancelling',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/** A time as "just now", "5 min ago", "3 h ago", or a date. */
export function ago(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(at).toLocaleDateString();
}
