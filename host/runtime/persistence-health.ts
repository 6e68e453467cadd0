/**
 * What the host does while its store cannot commit (issue 7, docs/operations.md "When the
 * disk fills"): at the first failed commit it starts nothing and stops the runs executing,
 * leaving them as last committed; a probe tries a small real commit every second; once one
 * works, the stopped runs are recovered as after a crash and the scheduler resumes.
 */
import { isPersistenceFailed, type Store } from '../store/index.js';
import { recoverStoppedRuns, type RecoveryReport } from './recovery.js';
import type { RunScheduler } from './run-scheduler.js';

/** How often the probe tries a commit while commits fail. */
const PROBE_INTERVAL_MS = 1_000;

export interface PersistenceHealthHooks {
  /** Commits work again and the stopped runs are settled (the report says how). */
  reopened(report: RecoveryReport): void;
  reportError(error: unknown): void;
}

export class PersistenceHealth {
  /** Runs whose execution was stopped by a failure, to recover when commits work. */
  private readonly stopped = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;

  constructor(
    private readonly store: Store,
    private readonly scheduler: RunScheduler,
    private readonly hooks: PersistenceHealthHooks,
    private readonly probeIntervalMs = PROBE_INTERVAL_MS,
  ) {}

  /** Starts watching: the store reports its first failed commit synchronously. */
  start(): void {
    this.stopListening ??= this.store.onPersistence((state) => {
      if (state.ok) return;
      for (const runId of this.scheduler.halt()) this.stopped.add(runId);
      this.arm();
    });
  }

  close(): void {
    this.stopListening?.();
    this.stopListening = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer !== null || this.stopListening === null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.probe();
    }, this.probeIntervalMs);
    this.timer.unref();
  }

  private probe(): void {
    if (this.store.persistence.ok) return;
    // A stopped run may still be killing its tool: recover it only once it has let go.
    if (this.scheduler.executingCount > 0 || !this.store.probeCommit()) return this.arm();
    let report: RecoveryReport;
    try {
      report = this.store.reopen((tx) => recoverStoppedRuns(this.store, this.stopped, tx));
    } catch (error) {
      if (!isPersistenceFailed(error)) this.hooks.reportError(error);
      return this.arm();
    }
    this.stopped.clear();
    // This runs in a timer: nothing may escape it. The work after reopening may meet a
    // disk failing again (the store has then closed its gate and this probe is armed
    // again) or fail otherwise; either way the scheduler resumes if commits still work.
    try {
      this.hooks.reopened(report);
    } catch (error) {
      if (!isPersistenceFailed(error)) this.hooks.reportError(error);
    }
    if (this.store.persistence.ok) this.scheduler.resume();
  }
}
