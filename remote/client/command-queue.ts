/**
 * Sending the outbox (docs/protocol.md §6.1): every pending command goes out on each new
 * connection until the host answers it for good; a retryable answer sends it again later.
 * The host's command log makes every resend safe.
 */
import { type CommandOpName, type OpResult, TetherError } from '../../protocol/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import type { Answer, Channel } from './channel.js';
import type { CommandArgs, Outbox, PendingCommand } from './outbox.js';
import { parseResult } from './op-result.js';
import type { TimerHandle, Timers } from './timers.js';

/** How a command ended: the host's result, or an error it will not get past by resending. */
export type CommandOutcome =
  { ok: true; result: Record<string, unknown> } | { ok: false; error: TetherError };

/** What the command queue needs from its connection. */
export interface CommandQueueDeps {
  outbox: Outbox;
  timers: Timers;
  backoff: BackoffOptions;
  channel(): Channel | undefined;
  /** Every command that ended, whether or not a caller still waits for it. */
  settled(command: PendingCommand, outcome: CommandOutcome): void;
  /** Something went wrong that changes nothing for the command (e.g. storage failed to forget it). */
  warn(error: TetherError): void;
}

interface Retry {
  timer: TimerHandle | undefined;
  backoff: Backoff;
}

/** The outbox's sender: one per host connection, living across its channels. */
export class CommandQueue {
  private readonly waiters = new Map<
    string,
    { settle(outcome: CommandOutcome): void; abandon(error: Error): void }
  >();
  /** Sent on the current connection and not answered yet. */
  private readonly inFlight = new Set<string>();
  private readonly retries = new Map<string, Retry>();
  /** Answered for good, being removed from the outbox: never sent again. */
  private readonly settling = new Set<string>();

  constructor(private readonly deps: CommandQueueDeps) {}

  /**
   * Stores the command, sends it when connected, and resolves with the host's result.
   * Rejects with the host's non-retryable error, or with `signal`'s reason once it aborts
   * (the command stays in the outbox: it may already have been applied).
   */
  async submit<O extends CommandOpName>(
    op: O,
    args: CommandArgs<O>,
    signal?: AbortSignal,
    commandId?: string,
  ): Promise<OpResult<O>> {
    signal?.throwIfAborted();
    const command = await this.deps.outbox.add(op, args, commandId);
    const outcome = new Promise<CommandOutcome>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(command.commandId);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(command.commandId, {
        settle: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        abandon: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
    });
    const channel = this.deps.channel();
    if (channel !== undefined) this.send(channel, command);
    const result = await outcome;
    if (!result.ok) throw result.error;
    return result.result as OpResult<O>;
  }

  /** A new connection: every pending command, oldest first. */
  resume(channel: Channel): void {
    for (const command of this.deps.outbox.pending) this.send(channel, command);
  }

  /**
   * The host says it can commit again (a `status` frame with `persistence: "ok"`): the
   * commands waiting out a retry after `persistence_failed` are sent at once.
   */
  retryWaitingNow(channel: Channel): void {
    for (const command of this.deps.outbox.pending) {
      if (this.retries.get(command.commandId)?.timer !== undefined) this.send(channel, command);
    }
  }

  /** The connection ended: nothing is in flight any more. */
  disconnected(): void {
    this.inFlight.clear();
    for (const retry of this.retries.values()) {
      if (retry.timer !== undefined) this.deps.timers.clearTimeout(retry.timer);
      retry.timer = undefined;
    }
  }

  /** The client is closing: callers stop waiting with `error`; the outbox keeps the commands. */
  abandon(error: Error): void {
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiter of waiters) waiter.abandon(error);
  }

  private send(channel: Channel, command: PendingCommand): void {
    const { commandId, op, args } = command;
    if (this.inFlight.has(commandId) || this.settling.has(commandId)) return;
    this.inFlight.add(commandId);
    const retry = this.retries.get(commandId);
    if (retry?.timer !== undefined) {
      this.deps.timers.clearTimeout(retry.timer);
      retry.timer = undefined;
    }
    channel.request(op, args, (answer) => {
      this.inFlight.delete(commandId);
      this.answered(command, answer);
    });
  }

  private answered(command: PendingCommand, answer: Answer): void {
    if (!answer.ok) {
      // Lost with its connection: resume() sends it again on the next one.
      if (!answer.fromHost && answer.error.code === 'unavailable') return;
      if (answer.fromHost && answer.error.retryable) {
        this.retryLater(command);
        return;
      }
      this.settle(command, { ok: false, error: answer.error });
      return;
    }
    try {
      const result = parseResult(command.op, answer.result);
      this.settle(command, { ok: true, result });
    } catch (error) {
      this.settle(command, { ok: false, error: TetherError.from(error) });
    }
  }

  private retryLater(command: PendingCommand): void {
    const retry = this.retries.get(command.commandId) ?? {
      timer: undefined,
      backoff: new Backoff(this.deps.backoff),
    };
    this.retries.set(command.commandId, retry);
    retry.timer = this.deps.timers.setTimeout(() => {
      retry.timer = undefined;
      const channel = this.deps.channel();
      if (channel !== undefined) this.send(channel, command);
    }, retry.backoff.next());
  }

  private settle(command: PendingCommand, outcome: CommandOutcome): void {
    const { commandId } = command;
    if (this.settling.has(commandId)) return;
    this.settling.add(commandId);
    this.retries.delete(commandId);
    const finish = () => {
      this.settling.delete(commandId);
      const waiter = this.waiters.get(commandId);
      this.waiters.delete(commandId);
      waiter?.settle(outcome);
      this.deps.settled(command, outcome);
    };
    // Forgotten before it is reported, so a restart in between resends it and the host
    // answers from its command log; a failure to forget changes nothing for the caller.
    this.deps.outbox.remove(commandId).then(finish, (error: unknown) => {
      this.deps.warn(TetherError.from(error));
      finish();
    });
  }
}
