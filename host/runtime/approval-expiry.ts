/**
 * Approvals past their expiry: resolved (approval-commands.ts), their runs woken, and a
 * timer armed for the next one.
 */
import { isPersistenceFailed, type Store } from '../store/index.js';
import { expireApprovals, nextExpiry } from './approval-commands.js';
import type { RunScheduler } from './run-scheduler.js';

export class ApprovalExpiry {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly scheduler: RunScheduler,
    private readonly reportError: (error: unknown) => void,
  ) {}

  /** Resolves approvals past their expiry, resumes their runs, and arms the next check. */
  expireDue(): void {
    if (expireApprovals(this.store, Date.now()) > 0) this.scheduler.wakeAllParked();
    this.schedule();
  }

  /** Arms the timer for the next approval to expire (after one was answered, say). */
  schedule(): void {
    this.stop();
    const next = nextExpiry(this.store);
    if (next === null) return;
    // At most a minute ahead, so a clock change or a long sleep cannot stretch the wait.
    const delay = Math.min(Math.max(next - Date.now(), 0) + 10, 60_000);
    this.timer = setTimeout(() => {
      try {
        this.expireDue();
      } catch (error) {
        // Commits fail: the store said so; expiry runs again once they work.
        if (!isPersistenceFailed(error)) this.reportError(error);
      }
    }, delay);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
