/**
 * The retry policy on its own: backoff bounds with a fixed random source, Retry-After in
 * each of its forms, and the abortable wait under fake timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryAfterMs, retryDelayMs, waitForRetry } from '../../host/model/retry-policy.js';

const bounds = { baseDelayMs: 1000, maxDelayMs: 60_000 };

describe('retryDelayMs', () => {
  it('draws uniformly below base * 2^(attempt - 1), capped at the maximum', () => {
    expect(retryDelayMs(1, bounds, undefined, () => 0.5)).toBe(500);
    expect(retryDelayMs(3, bounds, undefined, () => 0.5)).toBe(2000);
    expect(retryDelayMs(3, bounds, undefined, () => 0.9999)).toBeLessThan(4000);
    expect(retryDelayMs(12, bounds, undefined, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(2, bounds, undefined, () => 0)).toBe(0);
  });

  it('takes the server-given wait over backoff, capped at the maximum', () => {
    expect(retryDelayMs(1, bounds, 5000, () => 0)).toBe(5000);
    expect(retryDelayMs(1, bounds, 120_000, () => 0)).toBe(60_000);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-10-01T12:00:00Z');
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('reads retry-after-ms first, then Retry-After in seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
  });

  it('reads Retry-After as an HTTP date, never below zero', () => {
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Oct 2026 12:00:10 GMT' }), now)).toBe(
      10_000,
    );
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Oct 2026 11:59:00 GMT' }), now)).toBe(0);
  });

  it('gives undefined when there is nothing readable', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
  });
});

describe('waitForRetry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves true once the delay has passed, not before', async () => {
    vi.useFakeTimers();
    let result: boolean | undefined;
    void waitForRetry(1000, new AbortController().signal).then((value) => (result = value));

    await vi.advanceTimersByTimeAsync(999);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBe(true);
  });

  it('resolves false as soon as the signal aborts and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = waitForRetry(60_000, controller.signal);

    controller.abort();

    await expect(waiting).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves false at once for a signal that has already aborted', async () => {
    await expect(waitForRetry(60_000, AbortSignal.abort())).resolves.toBe(false);
  });
});
