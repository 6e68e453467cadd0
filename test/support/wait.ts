/**
 * The one way tests wait for a condition: {@link until}, built on vitest's `vi.waitFor`
 * (it advances fake timers when they are installed). It returns what it waited for and,
 * on timeout, fails naming what it waited for.
 */
import { vi } from 'vitest';

export interface WaitOptions {
  /** Give up after this many ms (default 20 s). */
  timeout?: number;
  /** Check again after this many ms (default 25). */
  interval?: number;
}

/** Waits until `check` returns something other than undefined, and resolves with it. */
export function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  options?: WaitOptions,
): Promise<T>;
/** Waits until `done` holds for what `read` returns, and resolves with that value. */
export function until<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options?: WaitOptions,
): Promise<T>;
export async function until<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  doneOrOptions?: ((value: T) => boolean) | WaitOptions,
  maybeOptions?: WaitOptions,
): Promise<T> {
  const done =
    typeof doneOrOptions === 'function'
      ? doneOrOptions
      : (value: T | undefined): value is T => value !== undefined;
  const options = (typeof doneOrOptions === 'function' ? maybeOptions : doneOrOptions) ?? {};
  return vi.waitFor(
    async () => {
      const value = await read();
      if (!done(value as T)) {
        const last = value === undefined ? '' : `; last value: ${JSON.stringify(value)}`;
        throw new Error(`timed out waiting for ${what}${last}`);
      }
      return value as T;
    },
    { timeout: options.timeout ?? 20_000, interval: options.interval ?? 25 },
  );
}
