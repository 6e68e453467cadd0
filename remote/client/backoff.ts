/**
 * Exponential backoff with full jitter: the n-th wait is uniform in
 * `[0, min(maxMs, baseMs · 2^n)]`, so many remotes reconnecting at once spread out.
 */

/** Reconnect waits; the defaults are the protocol's (about 0.3 s up to 30 s). */
export interface BackoffOptions {
  /** The first ceiling, default 300 ms. */
  baseMs?: number;
  /** The largest ceiling, default 30 s. */
  maxMs?: number;
  /** Uniform in [0, 1); default `Math.random`. */
  random?: () => number;
}

/** The first ceiling and the largest one. */
const DEFAULT_BACKOFF_BASE_MS = 300;
const DEFAULT_BACKOFF_MAX_MS = 30_000;

/** Consecutive failures and the next wait; {@link Backoff.reset} after a success. */
export class Backoff {
  private failures = 0;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? DEFAULT_BACKOFF_BASE_MS;
    this.maxMs = options.maxMs ?? DEFAULT_BACKOFF_MAX_MS;
    this.random = options.random ?? Math.random;
  }

  /** Failures since the last reset. */
  get attempt(): number {
    return this.failures;
  }

  /** The ceiling of the next wait. */
  get ceilingMs(): number {
    // 2^failures overflows to Infinity long after the ceiling is reached; min() handles it.
    return Math.min(this.maxMs, this.baseMs * 2 ** this.failures);
  }

  /** Counts a failure and returns how long to wait before the next try. */
  next(): number {
    const wait = Math.floor(this.random() * this.ceilingMs);
    this.failures += 1;
    return wait;
  }

  reset(): void {
    this.failures = 0;
  }
}
