/**
 * Noticing a wake: a timer that fires far later than it was set for (fake timers and a
 * fake clock jump stand in for the machine sleeping).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchForWake } from '../../host/power/testing.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('watchForWake', () => {
  it('reports a timer that fired much too late, with how long the machine slept', () => {
    const wakes: number[] = [];
    const stop = watchForWake((asleepMs) => wakes.push(asleepMs), 15_000, 30_000);
    vi.advanceTimersByTime(60_000);
    expect(wakes).toEqual([]);
    // Asleep: the clock jumps ten minutes while no timer runs.
    vi.setSystemTime(Date.now() + 600_000);
    vi.advanceTimersByTime(15_000);
    expect(wakes).toEqual([600_000]);
    vi.advanceTimersByTime(60_000);
    expect(wakes).toEqual([600_000]);
    stop();
    vi.setSystemTime(Date.now() + 600_000);
    vi.advanceTimersByTime(60_000);
    expect(wakes).toEqual([600_000]);
  });

  it('does not take a busy event loop, a little late, for a sleep', () => {
    const wakes: number[] = [];
    const stop = watchForWake((asleepMs) => wakes.push(asleepMs), 15_000, 30_000);
    vi.setSystemTime(Date.now() + 20_000);
    vi.advanceTimersByTime(15_000);
    expect(wakes).toEqual([]);
    stop();
  });
});
