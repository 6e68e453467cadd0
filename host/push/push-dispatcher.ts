/**
 * Durable Web Push delivery (docs/push.md). Committed events become pending pushes in
 * SQLite, by the rules of event-pushes.ts (never before their event committed: the dispatcher reads them after commit,
 * from a cursor kept in the same transaction as the pushes it made, so a crash neither
 * loses nor doubles one). Each pending push is sent until a 2xx, retried on 429, 5xx and
 * network errors with backoff and `Retry-After`, given up after `maxAttempts` (the
 * device's `lastError`); a 404 or 410 forgets the subscription. A push about an approval
 * that no longer waits is cancelled, not sent.
 */
import { randomInt } from 'node:crypto';
import { TetherError, type PushKind } from '../../protocol/index.js';
import type { PushSettings } from '../config/index.js';
import { faultPoint } from '../faults/index.js';
import type { PushKeys } from '../identity/index.js';
import {
  isPersistenceFailed,
  type Store,
  type StoredPushDelivery,
  type StoredPushSubscription,
} from '../store/index.js';
import { checkPushEndpoint } from './endpoint-policy.js';
import { isPushEvent, pushesOf } from './event-pushes.js';
import { testPayload } from './push-payload.js';
import { sendPush } from './push-sender.js';
import type { PushDispatcherOptions, PushHost, SendOutcome } from './types.js';

/** Settled pushes are kept this long (to read what happened), then pruned at start. */
const SETTLED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Events read per pass of the cursor. */
const EVENT_PAGE = 500;

/** `push.test`'s answer (docs/protocol.md §6.2). */
export interface PushTestResult extends Record<string, unknown> {
  status: 'delivered' | 'failed';
  httpStatus?: number;
  error?: string;
}

/** The host's push service: made at start, driven by the runtime. */
export class PushDispatcher {
  readonly vapidPublicKey: string;
  private readonly host: PushHost;
  private readonly keys: PushKeys;
  private readonly settings: PushSettings;
  private readonly concurrency: number;
  private readonly log: PushDispatcherOptions['log'];
  private readonly now: () => number;
  private readonly inFlight = new Set<number>();
  private readonly sends = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private scanQueued = false;
  private running = false;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly store: Store,
    options: PushDispatcherOptions,
  ) {
    this.host = options.host;
    this.keys = options.keys;
    this.settings = options.settings;
    this.concurrency = options.concurrency ?? 32;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.vapidPublicKey = options.keys.publicKey;
  }

  /** Refuses an endpoint outside the allowed push services (`invalid_request`). */
  checkEndpoint(endpoint: string): void {
    checkPushEndpoint(endpoint, this.settings.allowedEndpoints);
  }

  /** Turns the events committed while the host was down into pushes, then sends what is due. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.store.subscribe((events) => {
      if (events.some((event) => isPushEvent(event.type))) this.queueScan();
    });
    this.guard(() =>
      this.store.write((tx) => this.store.push.pruneBefore(tx.at - SETTLED_RETENTION_MS)),
    );
    this.scan();
  }

  /** Stops sending: pushes in flight are abandoned and stay pending for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await Promise.allSettled([...this.sends]);
  }

  /** Sends what is due now (after a subscription changed, say). */
  kick(): void {
    this.pump();
  }

  /**
   * Sends a test push to the device's subscription now, once, and records the outcome as
   * its push state. `invalid_state` (`details.state: "not_subscribed"`) without one.
   */
  async test(deviceId: string): Promise<PushTestResult> {
    const subscription = this.store.push.subscription(deviceId);
    if (subscription === undefined) {
      throw new TetherError('invalid_state', 'this device has no push subscription', {
        details: { state: 'not_subscribed' },
      });
    }
    const at = this.now();
    const outcome = await this.send(subscription, {
      payloadJson: JSON.stringify(testPayload(this.host, at)),
      ttlSeconds: 60,
      urgency: 'normal',
      topic: null,
    });
    this.guard(() =>
      this.store.write((tx) => {
        this.settleDevice(subscription.deviceId, outcome, tx.at);
      }),
    );
    this.logOutcome(subscription, 'test', outcome, 1);
    if (outcome.kind === 'delivered') return { status: 'delivered', httpStatus: outcome.status };
    return {
      status: 'failed',
      ...(outcome.status === null ? {} : { httpStatus: outcome.status }),
      error: outcome.error,
    };
  }

  private queueScan(): void {
    if (this.scanQueued) return;
    this.scanQueued = true;
    setImmediate(() => {
      this.scanQueued = false;
      this.scan();
    });
  }

  /** Reads events after the cursor, makes their pushes and moves the cursor, in one commit each page. */
  private scan(): void {
    if (!this.running) return;
    // Nobody subscribed: nothing to make and, as every unsubscribe cancels its device's
    // pending pushes, nothing to send. No transaction; the first subscription moves the
    // cursor past what this leaves.
    if (this.guard(() => this.store.push.hasSubscriptions()) !== true) return;
    let made = 0;
    for (;;) {
      const page = this.guard(() =>
        this.store.write((tx) => {
          const events = this.store.events.after(this.store.push.cursor(), {}, EVENT_PAGE);
          for (const event of events) {
            made += pushesOf(event, {
              store: this.store,
              host: this.host,
              body: this.settings.body,
              at: tx.at,
            });
          }
          const last = events.at(-1);
          if (last !== undefined) this.store.push.setCursor(last.seq);
          return events.length;
        }),
      );
      if (page === undefined || page < EVENT_PAGE) break;
    }
    if (made > 0) faultPoint('push-pending');
    this.pump();
  }

  /** Starts every due push there is room for, and arms the timer for the next one. */
  private pump(): void {
    if (!this.running) return;
    const now = this.now();
    const room = this.concurrency - this.inFlight.size;
    if (room > 0) {
      const due = this.guard(() => this.store.push.due(now, room + this.inFlight.size)) ?? [];
      for (const delivery of due) {
        if (this.inFlight.size >= this.concurrency) break;
        if (this.inFlight.has(delivery.id)) continue;
        this.inFlight.add(delivery.id);
        const send = this.deliver(delivery)
          .catch((error: unknown) =>
            this.log('error', 'a push delivery failed unexpectedly', { error: String(error) }),
          )
          .finally(() => {
            this.inFlight.delete(delivery.id);
            this.sends.delete(send);
            this.pump();
          });
        this.sends.add(send);
      }
    }
    this.arm(this.guard(() => this.store.push.nextDueAfter(now)) ?? null);
  }

  private arm(at: number | null): void {
    if (at === null || at >= this.timerAt) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        this.pump();
      },
      // At most a minute ahead, so a clock change cannot stretch the wait.
      Math.min(Math.max(at - this.now(), 0), 60_000),
    );
    this.timer.unref();
  }

  /** One attempt at one pending push, and its outcome recorded. */
  private async deliver(delivery: StoredPushDelivery): Promise<void> {
    const now = this.now();
    const subscription = this.store.push.subscription(delivery.deviceId);
    const why =
      subscription === undefined || this.store.devices.get(delivery.deviceId)?.revokedAt !== null
        ? 'the device has no push subscription any more'
        : delivery.approvalId !== null &&
            this.store.tools.getApproval(delivery.approvalId)?.state !== 'pending'
          ? 'the approval was answered before its push went out'
          : delivery.expiresAt <= now
            ? 'it expired before it could be delivered'
            : null;
    if (why !== null || subscription === undefined) {
      this.guard(() =>
        this.store.write((tx) =>
          this.store.push.finish(delivery.id, 'cancelled', {
            at: tx.at,
            attempts: delivery.attempts,
            status: null,
            error: why,
          }),
        ),
      );
      return;
    }
    const outcome = await this.send(subscription, {
      payloadJson: delivery.payloadJson,
      ttlSeconds: Math.max(0, Math.floor((delivery.expiresAt - now) / 1000)),
      urgency: delivery.urgency,
      topic: delivery.topic,
    });
    // Stopped meanwhile: the push stays pending, untouched, for the next start.
    if (!this.running) return;
    const attempts = delivery.attempts + 1;
    this.logOutcome(subscription, delivery.kind, outcome, attempts);
    this.guard(() =>
      this.store.write((tx) => {
        if (outcome.kind !== 'retry') {
          this.store.push.finish(
            delivery.id,
            outcome.kind === 'delivered' ? 'delivered' : 'failed',
            {
              at: tx.at,
              attempts,
              status: outcome.status,
              error: outcome.kind === 'delivered' ? null : outcome.error,
            },
          );
          this.settleDevice(delivery.deviceId, outcome, tx.at);
          return;
        }
        const next = tx.at + this.retryDelay(attempts, outcome.retryAfterMs);
        if (attempts >= this.settings.maxAttempts || next >= delivery.expiresAt) {
          const error = `gave up after ${attempts} ${attempts === 1 ? 'try' : 'tries'}: ${outcome.error}`;
          this.store.push.finish(delivery.id, 'failed', {
            at: tx.at,
            attempts,
            status: outcome.status,
            error,
          });
          this.store.push.recordError(delivery.deviceId, error);
          return;
        }
        this.store.push.retryAt(delivery.id, next, {
          attempts,
          status: outcome.status,
          error: outcome.error,
        });
      }),
    );
  }

  /** A device's push state after an outcome; a gone subscription is forgotten. */
  private settleDevice(deviceId: string, outcome: SendOutcome, at: number): void {
    switch (outcome.kind) {
      case 'delivered':
        this.store.push.recordDelivered(deviceId, at);
        return;
      case 'gone':
        this.store.push.unsubscribe(deviceId, at, outcome.error);
        this.store.push.recordError(deviceId, outcome.error);
        return;
      case 'failed':
      case 'retry':
        this.store.push.recordError(deviceId, outcome.error);
        return;
    }
  }

  /** Backoff doubling from `initialDelayMs` (with up to 10 % jitter), at least `Retry-After`. */
  private retryDelay(attempts: number, retryAfterMs: number | null): number {
    const { initialDelayMs, maxDelayMs } = this.settings;
    const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempts - 1, 30));
    const jittered = backoff + randomInt(0, Math.max(1, Math.floor(backoff / 10)));
    return Math.max(jittered, retryAfterMs ?? 0);
  }

  private send(
    subscription: StoredPushSubscription,
    push: {
      payloadJson: string;
      ttlSeconds: number;
      urgency: 'high' | 'normal';
      topic: string | null;
    },
  ): Promise<SendOutcome> {
    return sendPush(
      {
        endpoint: subscription.endpoint,
        keys: { p256dh: subscription.p256dh, auth: subscription.auth },
        ...push,
      },
      {
        keys: this.keys,
        subject: this.settings.subject,
        timeoutMs: this.settings.requestTimeoutMs,
        signal: this.abort.signal,
        now: this.now,
      },
    );
  }

  /** One line per attempt: the device, the service's origin and the outcome; no keys, no path. */
  private logOutcome(
    subscription: StoredPushSubscription,
    kind: PushKind,
    outcome: SendOutcome,
    attempts: number,
  ): void {
    const fields = {
      deviceId: subscription.deviceId,
      kind,
      service: new URL(subscription.endpoint).origin,
      attempts,
      status: outcome.status,
    };
    if (outcome.kind === 'delivered') this.log('info', 'push delivered', fields);
    else
      this.log('warn', `push not delivered (${outcome.kind})`, { ...fields, error: outcome.error });
  }

  /** Runs a store call; while commits fail it does nothing (pushes wait, pending, for them). */
  private guard<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      if (isPersistenceFailed(error)) return undefined;
      throw error;
    }
  }
}
