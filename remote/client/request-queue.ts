/**
 * Requests that may wait for a connection: each gets one deadline, covering the wait and
 * the answer, and an AbortSignal. Requests are reads (commands go through the outbox), so
 * one lost with its connection is sent again on the next.
 */
import { TetherError } from '../../protocol/index.js';
import type { Answer, Channel } from './channel.js';
import type { Timers } from './timers.js';

interface Waiter {
  send(channel: Channel): void;
  fail(error: Error): void;
}

/** A host connection's requests, living across its channels. */
export class RequestQueue {
  private readonly waiting = new Set<Waiter>();

  constructor(private readonly timers: Timers) {}

  /**
   * Sends on `channel`, or on the next one {@link flush}ed within `timeoutMs`. Resolves with
   * the answer; rejects with `unavailable` at the deadline, or the signal's reason.
   */
  send(
    channel: Channel | undefined,
    op: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<Answer> {
    const { timeoutMs, signal } = options;
    return new Promise<Answer>((resolve, reject) => {
      const waiter: Waiter = {
        send: (open) => {
          this.waiting.delete(waiter);
          open.request(op, args, (answer) => {
            // A read lost with its connection goes out again on the next one.
            const lost = !answer.ok && !answer.fromHost && answer.error.code === 'unavailable';
            if (!lost) finish(answer);
            else if (!done) this.waiting.add(waiter);
          });
        },
        fail: (error) => finish(error),
      };
      let done = false;
      const finish = (result: Answer | Error) => {
        if (done) return;
        done = true;
        this.timers.clearTimeout(timer);
        this.waiting.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onAbort = () => finish(signal?.reason as Error);
      const timer = this.timers.setTimeout(() => {
        finish(new TetherError('unavailable', `${op} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (channel !== undefined) waiter.send(channel);
      else this.waiting.add(waiter);
    });
  }

  /** A channel opened: every waiting request goes out on it. */
  flush(channel: Channel): void {
    for (const waiter of [...this.waiting]) waiter.send(channel);
  }

  /** Nothing will be sent any more: every waiting request fails with `error`. */
  failAll(error: Error): void {
    for (const waiter of [...this.waiting]) waiter.fail(error);
  }
}
