/**
 * Token buckets by key (an address, a device id): how many attempts may start, at what
 * sustained rate, answered without any work beyond a map lookup.
 */

/** A bucket holds up to `burst` tokens and gains `perMinute` a minute; each attempt takes one. */
export interface RateLimit {
  burst: number;
  perMinute: number;
}

/** Whether an attempt may go ahead; when not, how long until a token is back. */
export type RateVerdict = { ok: true } | { ok: false; retryInMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Keys tracked at most; a full bucket is the same as none, so those go first. */
const MAX_KEYS = 4096;
/** Where keys beyond {@link MAX_KEYS} share one bucket, so memory stays bounded. */
const OVERFLOW_KEY = '\u0000overflow';

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  /** Takes a token from `key`'s bucket if one is there. */
  take(key: string): RateVerdict {
    const now = this.now();
    const bucket = this.bucket(key, now);
    const perMs = this.limit.perMinute / 60_000;
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryInMs: Math.ceil((1 - bucket.tokens) / perMs) };
  }

  private bucket(key: string, now: number): Bucket {
    const found = this.buckets.get(key);
    if (found !== undefined) return found;
    if (this.buckets.size >= MAX_KEYS) this.forgetFull(now);
    const fresh = { tokens: this.limit.burst, at: now };
    if (this.buckets.size < MAX_KEYS) {
      this.buckets.set(key, fresh);
      return fresh;
    }
    let overflow = this.buckets.get(OVERFLOW_KEY);
    if (overflow === undefined) {
      overflow = fresh;
      this.buckets.set(OVERFLOW_KEY, overflow);
    }
    return overflow;
  }

  private forgetFull(now: number): void {
    const perMs = this.limit.perMinute / 60_000;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * perMs >= this.limit.burst) this.buckets.delete(key);
    }
  }
}
