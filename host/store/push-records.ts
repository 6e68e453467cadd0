/**
 * Web Push rows (docs/push.md): each device's subscription and push state, the pushes to
 * deliver, and the event cursor up to which events were turned into pushes.
 */
import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { PushKind, type DevicePush } from '../../protocol/index.js';
import { BOUND_LIMIT, cachedPrepare, type Db } from './database.js';
import { readJsonColumn } from './json-column.js';

/** A device's subscription as stored: the keys are not secret from the host, never logged. */
export interface StoredPushSubscription {
  deviceId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expirationTime: number | null;
  kinds: PushKind[];
  createdAt: number;
}

export type PushDeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One push to deliver to one device. */
export interface StoredPushDelivery {
  id: number;
  deviceId: string;
  kind: PushKind;
  runId: string | null;
  approvalId: string | null;
  /** The event it was made from (0 for `push.test`). */
  eventSeq: number;
  /** The JSON to encrypt (a PushPayload). */
  payloadJson: string;
  urgency: 'high' | 'normal';
  topic: string | null;
  /** Past this the push is pointless (its approval expired): the TTL counts down to it. */
  expiresAt: number;
  state: PushDeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export type NewPushDelivery = Pick<
  StoredPushDelivery,
  | 'deviceId'
  | 'kind'
  | 'runId'
  | 'approvalId'
  | 'eventSeq'
  | 'payloadJson'
  | 'urgency'
  | 'topic'
  | 'expiresAt'
>;

interface SubscriptionRow {
  device_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expiration_time: number | null;
  kinds_json: string;
  created_at: number;
}

interface DeliveryRow {
  id: number;
  device_id: string;
  kind: string;
  run_id: string | null;
  approval_id: string | null;
  event_seq: number;
  payload_json: string;
  urgency: string;
  topic: string | null;
  expires_at: number;
  state: string;
  attempts: number;
  next_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

const Kinds = z.array(PushKind);
const DeliveryState = z.enum(['pending', 'delivered', 'failed', 'cancelled']);
const Urgency = z.enum(['high', 'normal']);

function toSubscription(row: SubscriptionRow): StoredPushSubscription {
  return {
    deviceId: row.device_id,
    endpoint: row.endpoint,
    p256dh: row.p256dh,
    auth: row.auth,
    expirationTime: row.expiration_time,
    kinds: readJsonColumn(Kinds, row.kinds_json, `push kinds of ${row.device_id}`),
    createdAt: row.created_at,
  };
}

function toDelivery(row: DeliveryRow): StoredPushDelivery {
  return {
    id: row.id,
    deviceId: row.device_id,
    kind: PushKind.parse(row.kind),
    runId: row.run_id,
    approvalId: row.approval_id,
    eventSeq: row.event_seq,
    payloadJson: row.payload_json,
    urgency: Urgency.parse(row.urgency),
    topic: row.topic,
    expiresAt: row.expires_at,
    state: DeliveryState.parse(row.state),
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

export class PushRecords {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  /**
   * Stores the device's subscription, replacing its last one, and clears its last error.
   * The first subscription moves the cursor to the newest event: what was committed while
   * nobody subscribed is no one's push (the dispatcher does not read it).
   */
  subscribe(subscription: StoredPushSubscription): void {
    if (!this.hasSubscriptions()) {
      this.prepare(
        `INSERT INTO push_cursor (id, seq) VALUES (1, (SELECT COALESCE(MAX(seq), 0) FROM events))
           ON CONFLICT (id) DO UPDATE SET seq = excluded.seq`,
      ).run();
    }
    this.prepare(
      `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth, expiration_time, kinds_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (device_id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh,
           auth = excluded.auth, expiration_time = excluded.expiration_time,
           kinds_json = excluded.kinds_json, created_at = excluded.created_at`,
    ).run(
      subscription.deviceId,
      subscription.endpoint,
      subscription.p256dh,
      subscription.auth,
      subscription.expirationTime,
      JSON.stringify(subscription.kinds),
      subscription.createdAt,
    );
    this.prepare('UPDATE devices SET push_last_error = NULL WHERE device_id = ?').run(
      subscription.deviceId,
    );
  }

  /**
   * Forgets the device's subscription and cancels its pending pushes. Returns whether it
   * had one.
   */
  unsubscribe(deviceId: string, at: number, why: string): boolean {
    this.prepare(
      `UPDATE push_deliveries SET state = 'cancelled', last_error = ?, finished_at = ?
         WHERE device_id = ? AND state = 'pending'`,
    ).run(why, at, deviceId);
    return (
      this.prepare('DELETE FROM push_subscriptions WHERE device_id = ?').run(deviceId).changes > 0
    );
  }

  subscription(deviceId: string): StoredPushSubscription | undefined {
    const row = this.prepare('SELECT * FROM push_subscriptions WHERE device_id = ?').get(
      deviceId,
    ) as SubscriptionRow | undefined;
    return row && toSubscription(row);
  }

  /** The subscriptions of devices that are not revoked. */
  subscriptions(): StoredPushSubscription[] {
    const rows = this.prepare(
      `SELECT s.* FROM push_subscriptions s JOIN devices d ON d.device_id = s.device_id
         WHERE d.revoked_at IS NULL ORDER BY s.device_id`,
    ).all() as SubscriptionRow[];
    return rows.map(toSubscription);
  }

  /** Whether a device that is not revoked has a subscription. */
  hasSubscriptions(): boolean {
    return (
      this.prepare(
        `SELECT 1 FROM push_subscriptions s JOIN devices d ON d.device_id = s.device_id
           WHERE d.revoked_at IS NULL LIMIT 1`,
      ).get() !== undefined
    );
  }

  /** Every device's push state, by deviceId. */
  states(): Map<string, DevicePush> {
    const rows = this.prepare(
      `SELECT d.device_id, d.push_last_delivered_at, d.push_last_error,
         s.device_id IS NOT NULL AS subscribed
         FROM devices d LEFT JOIN push_subscriptions s ON s.device_id = d.device_id`,
    ).all() as {
      device_id: string;
      push_last_delivered_at: number | null;
      push_last_error: string | null;
      subscribed: number;
    }[];
    return new Map(
      rows.map((row) => [
        row.device_id,
        {
          subscribed: row.subscribed === 1,
          lastDeliveredAt: row.push_last_delivered_at,
          lastError: row.push_last_error,
        },
      ]),
    );
  }

  /** A push service took a push for the device (2xx): its error, if any, is past. */
  recordDelivered(deviceId: string, at: number): void {
    this.prepare(
      'UPDATE devices SET push_last_delivered_at = ?, push_last_error = NULL WHERE device_id = ?',
    ).run(at, deviceId);
  }

  recordError(deviceId: string, message: string): void {
    this.prepare('UPDATE devices SET push_last_error = ? WHERE device_id = ?').run(
      message,
      deviceId,
    );
  }

  /** The seq up to which committed events were turned into pushes. */
  cursor(): number {
    const row = this.prepare('SELECT seq FROM push_cursor WHERE id = 1').get() as
      { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  setCursor(seq: number): void {
    this.prepare(
      'INSERT INTO push_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq',
    ).run(seq);
  }

  /** Queues a push, due at once. Returns its id. */
  enqueue(delivery: NewPushDelivery, at: number): number {
    const result = this.prepare(
      `INSERT INTO push_deliveries (device_id, kind, run_id, approval_id, event_seq, payload_json,
         urgency, topic, expires_at, state, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    ).run(
      delivery.deviceId,
      delivery.kind,
      delivery.runId,
      delivery.approvalId,
      delivery.eventSeq,
      delivery.payloadJson,
      delivery.urgency,
      delivery.topic,
      delivery.expiresAt,
      at,
      at,
    );
    return Number(result.lastInsertRowid);
  }

  delivery(id: number): StoredPushDelivery | undefined {
    const row = this.prepare('SELECT * FROM push_deliveries WHERE id = ?').get(id) as
      DeliveryRow | undefined;
    return row && toDelivery(row);
  }

  /** Pending pushes due by `now`, oldest first. */
  due(now: number, limit: number): StoredPushDelivery[] {
    const rows = this.prepare(
      `SELECT * FROM push_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
         ORDER BY next_attempt_at, id ${BOUND_LIMIT}`,
    ).all(now, limit) as DeliveryRow[];
    return rows.map(toDelivery);
  }

  /** When the next pending push falls due after `after`; null when none does. */
  nextDueAfter(after: number): number | null {
    const row = this.prepare(
      "SELECT MIN(next_attempt_at) AS at FROM push_deliveries WHERE state = 'pending' AND next_attempt_at > ?",
    ).get(after) as { at: number | null };
    return row.at;
  }

  /** Settles a pending push as delivered, failed or cancelled; false when it was not pending. */
  finish(
    id: number,
    state: Exclude<PushDeliveryState, 'pending'>,
    outcome: { at: number; attempts: number; status: number | null; error: string | null },
  ): boolean {
    return (
      this.prepare(
        `UPDATE push_deliveries SET state = ?, attempts = ?, last_status = ?, last_error = ?,
           finished_at = ? WHERE id = ? AND state = 'pending'`,
      ).run(state, outcome.attempts, outcome.status, outcome.error, outcome.at, id).changes > 0
    );
  }

  /** Leaves a push pending for another try at `nextAt`. */
  retryAt(
    id: number,
    nextAt: number,
    outcome: { attempts: number; status: number | null; error: string },
  ): void {
    this.prepare(
      `UPDATE push_deliveries SET attempts = ?, next_attempt_at = ?, last_status = ?, last_error = ?
         WHERE id = ? AND state = 'pending'`,
    ).run(outcome.attempts, nextAt, outcome.status, outcome.error, id);
  }

  /** Cancels the pending pushes of an approval that no longer waits. Returns how many. */
  cancelForApproval(approvalId: string, at: number, why: string): number {
    return this.prepare(
      `UPDATE push_deliveries SET state = 'cancelled', last_error = ?, finished_at = ?
         WHERE approval_id = ? AND state = 'pending'`,
    ).run(why, at, approvalId).changes;
  }

  /**
   * Cancels the pending "ready to review" pushes of a session whose worktree was answered.
   * Returns how many.
   */
  cancelReviews(sessionId: string, at: number, why: string): number {
    return this.prepare(
      `UPDATE push_deliveries SET state = 'cancelled', last_error = ?, finished_at = ?
         WHERE kind = 'review' AND state = 'pending'
           AND run_id IN (SELECT id FROM runs WHERE session_id = ?)`,
    ).run(why, at, sessionId).changes;
  }

  /** Forgets settled pushes finished before `before`. */
  pruneBefore(before: number): number {
    return this.prepare(
      "DELETE FROM push_deliveries WHERE state != 'pending' AND finished_at < ?",
    ).run(before).changes;
  }
}
