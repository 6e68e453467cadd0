/**
 * What the runs list and the run screen derive from a host's state: order, whether a
 * session is free, the retry notice, plain-words explanations.
 */
import {
  type Event,
  isActiveRunState,
  isTerminalRunState,
  type Run,
  type RunState,
} from '#protocol';
import type { HostState } from '#client';

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

/**
 * Whether the run's session is free for a follow-up: its `session.idle` arrived, or it
 * is final and never held the session (cancelled while queued), or the session record
 * says another run (or none) holds it.
 */
export function isSessionIdle(state: HostState, runId: string): boolean {
  const run = state.runs[runId];
  if (run === undefined || !isTerminalRunState(run.state)) return false;
  const timeline = state.timelines[runId] ?? [];
  if (timeline.some((event) => event.type === 'session.idle')) return true;
  if (run.startedAt === null) return true;
  // Only a run seen finishing here waits for its session.idle event.
  if (timeline.some((event) => event.type === 'run.finished')) return false;
  const session = state.sessions[run.sessionId];
  return session === undefined || session.activeRunId !== runId;
}

/**
 * The model retry to show: the last one since the last completed message, while the run
 * is not final (a run that failed after its last retry is no longer retrying).
 */
export function currentRetry(
  run: Run,
  timeline: readonly Event[],
): { attempt: number; maxAttempts: number; reason: string } | undefined {
  if (isTerminalRunState(run.state)) return undefined;
  for (let i = timeline.length - 1; i >= 0; i--) {
    const event = timeline[i]!;
    if (event.type === 'message.completed') return undefined;
    if (event.type === 'model.retry') {
      const { attempt, maxAttempts, reason } = event.payload;
      return { attempt, maxAttempts, reason };
    }
  }
  return undefined;
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

/** A byte count as "12 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
