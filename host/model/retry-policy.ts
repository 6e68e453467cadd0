/**
 * When to try a model request again: exponential backoff with full jitter, or the
 * server's own Retry-After, always capped; and a wait that an abort cuts short.
 */

/** Bounds of the backoff, in milliseconds. */
export interface BackoffBounds {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The delay before attempt `failedAttempt + 1`: `retryAfterMs` when the server gave one,
 * else a uniformly random delay up to `base * 2^(failedAttempt - 1)` (full jitter); both
 * capped at `maxDelayMs`.
 */
export function retryDelayMs(
  failedAttempt: number,
  bounds: BackoffBounds,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, bounds.maxDelayMs);
  const ceiling = Math.min(bounds.maxDelayMs, bounds.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The wait a response asks for: `retry-after-ms` (OpenAI's), else `Retry-After` in seconds
 * or as an HTTP date. Undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds)) return Math.max(0, Math.ceil(milliseconds));
  const value = headers?.get('retry-after');
  if (value === null || value === undefined) return undefined;
  const seconds = Number(value.trim());
  if (value.trim() !== '' && Number.isFinite(seconds))
    return Math.max(0, Math.ceil(seconds * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `delayMs`; resolves false at once if `signal` aborts first (or already has). */
export function waitForRetry(delayMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
