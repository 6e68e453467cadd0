/**
 * Uploads no run was given (an upload left unfinished, a task never sent, a recording whose
 * transcription failed), removed a day after their last chunk (docs/attachments.md), so
 * one still arriving is never cut off mid-way: at start, then
 * every hour while the host runs, at most a batch at a time so that one sweep never holds
 * the store for long; a sweep that filled its batch goes on a second later.
 */
import { isPersistenceFailed, type Store } from '../store/index.js';

/** An attachment no run was given is kept this long from its last chunk (or its start). */
export const UNUSED_ATTACHMENT_MS = 24 * 60 * 60 * 1000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const SWEEP_BATCH = 64;
/** After a full batch, the next one comes this soon: the rest go without a long wait. */
const NEXT_BATCH_MS = 1000;

export interface UploadSweepOptions {
  /** Between sweeps that found less than a batch; an hour by default. */
  intervalMs?: number;
  /** Uploads removed at most per sweep. */
  batch?: number;
  now?: () => number;
}

export class UploadSweep {
  private timer: NodeJS.Timeout | null = null;
  private readonly intervalMs: number;
  private readonly batch: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    private readonly reportError: (error: unknown) => void,
    options: UploadSweepOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
    this.batch = options.batch ?? SWEEP_BATCH;
    this.now = options.now ?? Date.now;
  }

  /** Removes up to a batch of unused uploads past their expiry (rows, then files); how many. */
  sweep(): number {
    return this.store.write(() => {
      const expired = this.store.attachments.listUnused(
        this.now() - UNUSED_ATTACHMENT_MS,
        this.batch,
      );
      for (const id of expired) this.store.attachments.discard(id);
      return expired.length;
    });
  }

  /** Sweeps now, then on a timer until `stop`. */
  start(): void {
    this.stop();
    let removed = 0;
    try {
      removed = this.sweep();
    } catch (error) {
      // Commits fail: the store said so; the next sweep tries again.
      if (!isPersistenceFailed(error)) this.reportError(error);
    }
    this.timer = setTimeout(
      () => this.start(),
      removed === this.batch ? NEXT_BATCH_MS : this.intervalMs,
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
