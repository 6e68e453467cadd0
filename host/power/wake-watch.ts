/**
 * Noticing that the machine slept: a timer that fires far later than it was set for.
 */

const INTERVAL_MS = 15_000;
/** Late by more than this is a sleep, not a busy event loop. */
const LATE_MS = 30_000;

/** Calls `onWake(asleepMs)` after each sleep; returns the stop function. */
export function watchForWake(
  onWake: (asleepMs: number) => void,
  intervalMs = INTERVAL_MS,
  lateMs = LATE_MS,
): () => void {
  let last = Date.now();
  const timer = setInterval(() => {
    const at = Date.now();
    const late = at - last - intervalMs;
    last = at;
    if (late > lateMs) onWake(late);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
