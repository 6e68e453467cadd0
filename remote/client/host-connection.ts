/**
 * One paired host: connects, keeps the connection (backoff, keepalive, close codes),
 * resumes subscriptions and resends the outbox on every new connection, and holds the
 * host's state.
 */
import {
  type CommandOpName,
  type Event,
  type OpArgs,
  type OpResult,
  OPS,
  parseWith,
  type SubscribeScope,
  TetherError,
} from '../../protocol/index.js';
import { Backoff } from './backoff.js';
import { Channel, type PushMessage } from './channel.js';
import { nextStep } from './close-codes.js';
import { CommandQueue } from './command-queue.js';
import {
  type ConnectionEvent,
  type ConnectionSettings,
  type ConnectionStatus,
  DEFAULT_CONNECTION_SETTINGS,
  type HostConnectionOptions,
  type HostHealth,
  outboxKey,
  type RequestOpName,
  type StopReason,
  stopReason,
} from './connection-types.js';
import { type EventSubscription, SubscriptionSet } from './event-subscriptions.js';
import type { SocketEnd } from './frame-socket.js';
import { Listeners } from './listeners.js';
import { parseResult } from './op-result.js';
import { openChannelOverSocket, type OpenedChannel } from './open-channel.js';
import { type CommandArgs, Outbox, type PendingCommand } from './outbox.js';
import { RequestQueue } from './request-queue.js';
import { HostStateStore } from './state-store.js';
import { delay, systemTimers, type Timers } from './timers.js';

/**
 * A paired host, kept connected: use {@link HostConnection.request} for reads,
 * {@link HostConnection.submit} for commands, {@link HostConnection.subscribeEvents} to
 * follow events, and {@link HostConnection.state} for what they add up to.
 */
export class HostConnection {
  /** The host's records and live streams, as this remote knows them. */
  readonly state = new HostStateStore();
  readonly hostId: string;
  readonly hostName: string;
  /** This device's id on that host. */
  readonly deviceId: string;
  private readonly settings: ConnectionSettings;
  private readonly timers: Timers;
  private readonly backoff: Backoff;
  private readonly outbox: Outbox;
  private readonly commands: CommandQueue;
  private readonly subscriptions: SubscriptionSet;
  private readonly events = new Listeners<ConnectionEvent>();
  private readonly requests: RequestQueue;
  private readonly closing = new AbortController();
  private currentStatus: ConnectionStatus = { state: 'connecting', attempt: 0 };
  private health: HostHealth | undefined;
  private channel: Channel | undefined;
  private instanceId: string | undefined;
  private running: Promise<void> | undefined;
  private skipWait: AbortController | undefined;

  constructor(private readonly options: HostConnectionOptions) {
    ({ hostId: this.hostId, hostName: this.hostName, deviceId: this.deviceId } = options.record);
    this.settings = { ...DEFAULT_CONNECTION_SETTINGS, ...options.settings };
    this.timers = options.timers ?? systemTimers;
    this.backoff = new Backoff(this.settings.backoff);
    this.requests = new RequestQueue(this.timers);
    const { hostId, timers } = this;
    this.outbox = new Outbox(options.storage, outboxKey(hostId), {
      now: () => timers.now(),
      changed: (pending) => this.events.emit({ type: 'outboxChanged', hostId, pending }),
      ...(options.randomBytes === undefined ? {} : { randomBytes: options.randomBytes }),
    });
    const channel = () => this.channel;
    const backoff = this.settings.backoff;
    this.commands = new CommandQueue({
      outbox: this.outbox,
      timers,
      backoff,
      channel,
      settled: (command, outcome) =>
        this.events.emit({ type: 'commandSettled', hostId, command, outcome }),
      warn: (error) => this.events.emit({ type: 'warning', hostId, error }),
    });
    this.subscriptions = new SubscriptionSet({
      state: this.state,
      timers,
      backoff,
      channel,
      failed: (scope, error) =>
        this.events.emit({ type: 'subscriptionFailed', hostId, scope, error }),
    });
  }

  get status(): ConnectionStatus {
    return this.currentStatus;
  }

  /**
   * What the host last said of its condition on the current connection (kept while
   * reconnecting); undefined when it said nothing. A host whose store fails says so right
   * after the welcome, so undefined on a connection open for a moment means healthy.
   */
  get hostHealth(): HostHealth | undefined {
    return this.health;
  }

  /** Commands not answered yet, oldest first (after {@link start}, those of earlier clients too). */
  get pendingCommands(): readonly PendingCommand[] {
    return this.outbox.pending;
  }

  /**
   * Status changes, restarts, the host's condition, settled commands, failed
   * subscriptions, warnings.
   */
  on(listener: (event: ConnectionEvent) => void): () => void {
    return this.events.add(listener);
  }

  /** Starts connecting (once); reconnects until {@link close} or a final refusal. */
  start(): void {
    this.running ??= this.run();
  }

  /**
   * Sends a request when connected and resolves with its validated result. Rejects with
   * the host's error, `invalid_request` for bad args, `unavailable` when no answer came
   * within `timeoutMs` (default 30 s, waiting for a connection included), or the
   * stopping error once the connection is stopped.
   */
  async request<O extends RequestOpName>(
    op: O,
    args: OpArgs<O>,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<OpResult<O>> {
    const { timeoutMs = this.settings.requestTimeoutMs, signal } = options;
    signal?.throwIfAborted();
    const checked: Record<string, unknown> = parseWith(OPS[op].args, args, `args of ${op}`);
    const ended = this.endedError();
    if (ended !== undefined) throw ended;
    const answer = await this.requests.send(this.channel, op, checked, { timeoutMs, signal });
    if (!answer.ok) throw answer.error;
    return parseResult(op, answer.result);
  }

  /**
   * Runs a command through the durable outbox: it gets its commandId and is stored before
   * the first send, and is resent after every reconnect until answered. Resolves with the
   * host's result; rejects with a non-retryable error (`persistence_failed`, `unavailable`
   * and `rate_limited` are retried). `signal` stops the waiting, not the command.
   * `commandId`: one the caller made and kept, to send the same command again after a
   * reload (the host answers it from its command log if it has it).
   */
  submit<O extends CommandOpName>(
    op: O,
    args: CommandArgs<O>,
    options: { signal?: AbortSignal; commandId?: string } = {},
  ): Promise<OpResult<O>> {
    const ended = this.endedError();
    if (ended !== undefined) return Promise.reject(ended);
    return this.commands.submit(op, args, options.signal, options.commandId);
  }

  /**
   * Follows the host's events in `scope` (all by default), from `afterSeq` when given, else
   * from a snapshot that replaces this scope's state. Resumes by itself after reconnects.
   */
  subscribeEvents(
    scope: SubscribeScope = {},
    options: { afterSeq?: number; onEvents?: (events: readonly Event[]) => void } = {},
  ): EventSubscription {
    const subscription = this.subscriptions.add(scope, options.afterSeq);
    if (options.onEvents !== undefined) subscription.onEvents(options.onEvents);
    return subscription;
  }

  /** Skips the current backoff wait and reconnects now (e.g. when the network came back). */
  retryNow(): void {
    this.skipWait?.abort();
  }

  /**
   * Closes the open socket as lost, when the network went away (a browser's `offline`
   * event): such a socket may still look open while nothing passes. Requests and commands
   * wait for the next connection, which comes after the usual backoff wait
   * ({@link retryNow} cuts it short once the network is back).
   */
  dropSocket(): void {
    this.channel?.close(1000, 'the network went away');
  }

  /**
   * Closes the connection and stops reconnecting. Pending requests and `submit` calls
   * reject with `unavailable`; their commands stay in the outbox for the next client.
   */
  async close(): Promise<void> {
    this.closing.abort(new TetherError('unavailable', 'connection closed by the client'));
    this.channel?.close(1000, 'client closing');
    this.skipWait?.abort();
    await this.running;
    this.setStatus({ state: 'closed' });
    const reason = this.closing.signal.reason as TetherError;
    this.requests.failAll(reason);
    this.commands.abandon(reason);
  }

  private async run(): Promise<void> {
    try {
      await this.outbox.load();
    } catch (error) {
      this.stop('failed', TetherError.from(error));
      return;
    }
    while (!this.closing.signal.aborted) {
      this.setStatus({ state: 'connecting', attempt: this.backoff.attempt });
      const { end, stable } = await this.connectOnce();
      if (this.closing.signal.aborted) return;
      const step = nextStep(end.code, end.error);
      if (step === 'stop') {
        this.stop(stopReason(end.error), end.error);
        return;
      }
      // A rekey comes after 2^20 frames or 24 h; one sooner is retried like any failure.
      if (step === 'now' && stable) continue;
      const retryInMs = this.backoff.next();
      this.setStatus({
        state: 'waiting',
        attempt: this.backoff.attempt,
        retryInMs,
        retryAt: this.timers.now() + retryInMs,
        error: end.error,
      });
      await this.pause(retryInMs);
    }
  }

  private async connectOnce(): Promise<{ end: SocketEnd; stable: boolean }> {
    let opened: OpenedChannel;
    try {
      opened = await openChannelOverSocket(this.options.record, {
        socketFactory: this.options.socketFactory,
        timers: this.timers,
        timeoutMs: this.settings.handshakeTimeoutMs,
        signal: this.closing.signal,
        now: () => this.timers.now(),
        ...(this.options.randomBytes === undefined
          ? {}
          : { randomBytes: this.options.randomBytes }),
        ...(this.options.crypto === undefined ? {} : { crypto: this.options.crypto }),
      });
    } catch (error) {
      return { end: { code: undefined, error: TetherError.from(error) }, stable: false };
    }
    return this.serve(opened);
  }

  /** Runs one open channel; resolves when it ends. */
  private serve(opened: OpenedChannel): Promise<{ end: SocketEnd; stable: boolean }> {
    return new Promise((resolve) => {
      const openedAt = this.timers.now();
      const { hostId } = this;
      const channel: Channel = new Channel(
        opened,
        {
          push: (message) => this.push(channel, message),
          invalid: (error) => this.events.emit({ type: 'warning', hostId, error }),
          end: (end) => {
            this.channel = undefined;
            this.subscriptions.disconnected();
            this.commands.disconnected();
            const stable = this.timers.now() - openedAt >= this.settings.stableAfterMs;
            if (stable) this.backoff.reset();
            resolve({ end, stable });
          },
        },
        this.settings.keepalive,
        this.timers,
      );
      this.channel = channel;
      this.health = undefined;
      const previous = this.instanceId;
      const { connectionId, instanceId } = channel;
      this.instanceId = instanceId;
      this.setStatus({ state: 'open', connectionId, instanceId });
      if (previous !== undefined && previous !== instanceId) {
        this.events.emit({
          type: 'hostRestarted',
          hostId,
          previousInstance: previous,
          instance: instanceId,
        });
      }
      channel.start();
      if (!channel.isOpen) return;
      this.subscriptions.resume(channel);
      this.commands.resume(channel);
      this.requests.flush(channel);
    });
  }

  private push(channel: Channel, message: PushMessage): void {
    switch (message.t) {
      case 'events':
      case 'lagged':
        this.subscriptions.push(channel, message);
        return;
      case 'preview':
        this.state.applyPreview(message);
        return;
      case 'output':
        this.state.applyOutput(message);
        return;
      case 'status': {
        const { persistence, message: text } = message;
        this.health = text === undefined ? { persistence } : { persistence, message: text };
        this.events.emit({ type: 'hostStatus', hostId: this.hostId, ...this.health });
        if (persistence === 'ok') this.commands.retryWaitingNow(channel);
        return;
      }
    }
  }

  /** Waits `ms`, or less if {@link retryNow} or {@link close} cuts the wait short. */
  private async pause(ms: number): Promise<void> {
    this.skipWait = new AbortController();
    await delay(this.timers, ms, this.skipWait.signal).catch(() => undefined);
  }

  private stop(reason: StopReason, error: TetherError): void {
    this.setStatus({ state: 'stopped', reason, error });
    this.requests.failAll(error);
    this.commands.abandon(error);
  }

  /** Why nothing can be sent any more, once the connection is stopped or closed. */
  private endedError(): TetherError | undefined {
    const status = this.currentStatus;
    if (status.state === 'stopped') return status.error;
    if (this.closing.signal.aborted) return this.closing.signal.reason as TetherError;
    return undefined;
  }

  private setStatus(status: ConnectionStatus): void {
    this.currentStatus = status;
    this.events.emit({ type: 'status', hostId: this.hostId, status });
  }
}
