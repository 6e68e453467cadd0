/**
 * Time as the client sees it, injectable so tests drive reconnects and keepalives with
 * fake timers instead of sleeping.
 */

/** An opaque timer handle. */
export type TimerHandle = object | number;

/** The clock and timers every time-dependent part of the client uses. */
export interface Timers {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The global clock and timers, looked up at each call (so `vi.useFakeTimers` applies). */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function delay(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      timers.clearTimeout(handle);
      reject(signal?.reason as Error);
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
