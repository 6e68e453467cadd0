/**
 * What the run screen derives from a host's state: whether the session is free for a
 * follow-up, the model retry to show, sizes in words. Apart from logic/run-view.ts, which
 * the first load's runs list needs: this loads with the run screen.
 */
import { type Event, isTerminalRunState, type Run } from '#protocol';
import type { HostState } from '#client';

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

/** A byte count as "12 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** How many files the run was given (`input.attachments`, ids the first load does not parse). */
export function attachedCount(run: Run): number {
  const ids: unknown = run.input['attachments'];
  return Array.isArray(ids) ? ids.length : 0;
}
