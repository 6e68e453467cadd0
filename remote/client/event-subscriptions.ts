/**
 * Subscriptions that outlive connections (docs/protocol.md §6.3): each keeps its last seq, is
 * subscribed again from it on every new connection or after `lagged`, and passes on only
 * events it has not seen.
 */
import { type Event, type SubscribeScope, TetherError } from '../../protocol/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import type { Channel, EventsPush } from './channel.js';
import { Listeners } from './listeners.js';
import type { HostStateStore } from './state-store.js';
import { parseResult } from './op-result.js';
import type { TimerHandle, Timers } from './timers.js';

/** A subscription as its owner sees it. */
export interface EventSubscription {
  readonly scope: SubscribeScope;
  /** The highest seq seen on it; undefined until the first answer. */
  readonly lastSeq: number | undefined;
  /**
   * The seq its events start after: the first answer's snapshot cursor, or the `afterSeq`
   * it was given; undefined until the first answer. Unlike `lastSeq` it does not move when
   * events come in the same turn as that answer, before `ready`'s callbacks run.
   */
  readonly startedAfter: number | undefined;
  /** Resolves at the first successful `subscribe`; rejects if the host refuses it for good. */
  readonly ready: Promise<void>;
  /**
   * New events, seq ascending, each once. After a `snapshot` answer the state was replaced
   * and the events up to its cursor are not delivered.
   */
  onEvents(listener: (events: readonly Event[]) => void): () => void;
  close(): void;
}

/** What the subscriptions need from their connection. */
export interface SubscriptionsDeps {
  state: HostStateStore;
  timers: Timers;
  backoff: BackoffOptions;
  /** The open channel, if any. */
  channel(): Channel | undefined;
  /** A subscription the host refused for good (it is closed). */
  failed(scope: SubscribeScope, error: TetherError): void;
}

class Subscription implements EventSubscription {
  lastSeq: number | undefined;
  startedAfter: number | undefined;
  /** The host's id for it on the current connection. */
  sub: string | undefined;
  /** Sent on this channel and not yet answered. */
  pendingOn: Channel | undefined;
  closed = false;
  retry: TimerHandle | undefined;
  readonly retries: Backoff;
  readonly events = new Listeners<readonly Event[]>();
  readonly ready: Promise<void>;
  settleReady!: (error?: TetherError) => void;

  constructor(
    readonly scope: SubscribeScope,
    afterSeq: number | undefined,
    backoff: BackoffOptions,
    readonly detach: (subscription: Subscription) => void,
  ) {
    this.lastSeq = afterSeq;
    this.retries = new Backoff(backoff);
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error === undefined ? resolve() : reject(error));
    });
    this.ready.catch(() => undefined);
  }

  onEvents(listener: (events: readonly Event[]) => void): () => void {
    return this.events.add(listener);
  }

  close(): void {
    this.detach(this);
  }
}

/** A host connection's subscriptions, living across its channels. */
export class SubscriptionSet {
  private readonly all = new Set<Subscription>();
  private readonly bySub = new Map<string, Subscription>();

  constructor(private readonly deps: SubscriptionsDeps) {}

  /** Starts following `scope`, from `afterSeq` when given (else from a snapshot). */
  add(scope: SubscribeScope, afterSeq: number | undefined): EventSubscription {
    const subscription = new Subscription(scope, afterSeq, this.deps.backoff, (s) =>
      this.remove(s),
    );
    this.all.add(subscription);
    const channel = this.deps.channel();
    if (channel !== undefined) this.subscribe(channel, subscription);
    return subscription;
  }

  /** A new connection: every subscription again, from its last seq. */
  resume(channel: Channel): void {
    for (const subscription of this.all) this.subscribe(channel, subscription);
  }

  /** The connection ended: the host forgot every subscription. */
  disconnected(): void {
    this.bySub.clear();
    for (const subscription of this.all) {
      subscription.sub = undefined;
      subscription.pendingOn = undefined;
      this.clearRetry(subscription);
    }
  }

  /** Handles `events` and `lagged`; frames for unknown or closed subscriptions are dropped. */
  push(channel: Channel, message: EventsPush | { t: 'lagged'; sub: string; cursor: number }): void {
    const subscription = this.bySub.get(message.sub);
    if (subscription === undefined) return;
    if (message.t === 'lagged') {
      this.bySub.delete(message.sub);
      subscription.sub = undefined;
      this.subscribe(channel, subscription);
      return;
    }
    let last = subscription.lastSeq ?? -1;
    const fresh = message.events.filter((event) => {
      if (event.seq <= last) return false;
      last = event.seq;
      return true;
    });
    subscription.lastSeq = Math.max(last, message.lastSeq);
    if (fresh.length === 0) return;
    this.deps.state.applyEvents(fresh);
    subscription.events.emit(fresh);
  }

  private subscribe(channel: Channel, subscription: Subscription): void {
    if (subscription.closed || subscription.pendingOn === channel) return;
    if (subscription.sub !== undefined) return;
    this.clearRetry(subscription);
    subscription.pendingOn = channel;
    const { scope, lastSeq } = subscription;
    const args = {
      ...(lastSeq === undefined ? {} : { afterSeq: lastSeq }),
      ...(Object.keys(scope).length === 0 ? {} : { scope }),
    };
    channel.request('subscribe', args, (answer) => {
      if (subscription.pendingOn !== channel) return;
      subscription.pendingOn = undefined;
      if (subscription.closed) {
        if (answer.ok) channel.request('unsubscribe', { sub: answer.result.sub }, () => undefined);
        return;
      }
      if (!answer.ok) {
        if (!answer.fromHost) return; // the connection ended; resume() sends it again
        if (answer.error.retryable) this.retryLater(subscription);
        else this.fail(subscription, answer.error);
        return;
      }
      try {
        const result = parseResult('subscribe', answer.result);
        if (result.mode === 'snapshot') {
          this.deps.state.applySnapshot(scope, result.snapshot, result.cursor);
          subscription.lastSeq = result.cursor;
        } else {
          subscription.lastSeq ??= result.cursor;
        }
        subscription.startedAfter ??= subscription.lastSeq;
        subscription.sub = result.sub;
        this.bySub.set(result.sub, subscription);
        subscription.retries.reset();
        subscription.settleReady();
      } catch (error) {
        this.fail(subscription, TetherError.from(error));
      }
    });
  }

  private retryLater(subscription: Subscription): void {
    subscription.retry = this.deps.timers.setTimeout(() => {
      subscription.retry = undefined;
      const channel = this.deps.channel();
      if (channel !== undefined) this.subscribe(channel, subscription);
    }, subscription.retries.next());
  }

  private fail(subscription: Subscription, error: TetherError): void {
    this.remove(subscription);
    subscription.settleReady(error);
    this.deps.failed(subscription.scope, error);
  }

  private remove(subscription: Subscription): void {
    if (subscription.closed) return;
    subscription.closed = true;
    this.all.delete(subscription);
    this.clearRetry(subscription);
    const { sub } = subscription;
    if (sub === undefined) return;
    this.bySub.delete(sub);
    this.deps.channel()?.request('unsubscribe', { sub }, () => undefined);
  }

  private clearRetry(subscription: Subscription): void {
    if (subscription.retry !== undefined) this.deps.timers.clearTimeout(subscription.retry);
    subscription.retry = undefined;
  }
}
