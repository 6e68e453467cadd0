/**
 * When to try a model request again: exponential backoff with full jitter, or the
 * server's own Retry-After (or Gemini's RetryInfo), always capped; and a wait that an
 * abort cuts short. Whether a class of failure is worth a retry at all is
 * error-classes.ts's RETRYABLE table.
 */
import { z } from 'zod';

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

const retryInfoSchema = z.looseObject({
  details: z.array(
    z.looseObject({ '@type': z.string().optional(), retryDelay: z.unknown().optional() }),
  ),
});

/**
 * The wait a Google error body asks for: `details[]` entry of type
 * `type.googleapis.com/google.rpc.RetryInfo` with `retryDelay` as a protobuf Duration
 * ("13s", "0.5s"). Undefined when absent or unreadable.
 */
export function retryInfoDelayMs(error: unknown): number | undefined {
  const parsed = retryInfoSchema.safeParse(error);
  if (!parsed.success) return undefined;
  const info = parsed.data.details.find((detail) =>
    detail['@type']?.endsWith('google.rpc.RetryInfo'),
  );
  const delay =
    typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return delay?.[1] === undefined ? undefined : Math.ceil(Number(delay[1]) * 1000);
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
