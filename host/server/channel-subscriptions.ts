/**
 * The subscriptions of one open channel (docs/protocol.md 6.3): committed events packed
 * into `events` frames, `lagged` when the remote cannot keep up, and which runs it watches
 * for live previews.
 */
import type { Event } from '../../protocol/index.js';
import { eventJson } from '../../protocol/index.js';
import type { Subscription } from '../runtime/index.js';
import type { ChannelSender } from './channel-sender.js';
import { eventsFrameJson } from './events-frame.js';
import { newServerId } from './server-ids.js';

/** Events per `events` frame are packed up to about this many bytes of JSON. */
const EVENTS_FRAME_BYTES = 256 * 1024;

/** What a subscription covers: one run, one session, or everything. */
export interface SubscriptionScope {
  runId?: string;
  sessionId?: string;
}

interface OpenSubscription {
  subscription: Subscription;
  scope: SubscriptionScope;
  lastSeq: number;
}

/** The subscriptions one open channel holds, each under its `sub` id. */
export class ChannelSubscriptions {
  private readonly open = new Map<string, OpenSubscription>();

  constructor(private readonly sender: ChannelSender) {}

  /** Holds `subscription` under a new `sub` id; nothing is delivered until {@link start}. */
  add(subscription: Subscription, scope: SubscriptionScope): string {
    const sub = newServerId('sub');
    this.open.set(sub, { subscription, scope, lastSeq: subscription.cursor });
    return sub;
  }

  /** Starts delivery of `sub` (once its subscribe answer went out). */
  start(sub: string): void {
    this.open.get(sub)?.subscription.start((events) => this.deliver(sub, events));
  }

  /** Ends `sub`; an unknown one is already gone. */
  close(sub: string): void {
    this.open.get(sub)?.subscription.close();
    this.open.delete(sub);
  }

  /** Ends every subscription (the channel closed). */
  closeAll(): void {
    for (const { subscription } of this.open.values()) subscription.close();
    this.open.clear();
  }

  /** Whether a subscription covers `runId` (of `sessionId`): its previews go to this channel. */
  watches(runId: string, sessionId: string | null): boolean {
    return [...this.open.values()].some(({ scope }) =>
      scope.runId !== undefined
        ? scope.runId === runId
        : scope.sessionId === undefined || scope.sessionId === sessionId,
    );
  }

  /** Sends committed events of one subscription, or `lagged` when the remote cannot keep up. */
  private deliver(sub: string, events: Event[]): void {
    const state = this.open.get(sub);
    if (state === undefined || !this.sender.isOpen) return;
    let batch: Event[] = [];
    let lastSeq = state.lastSeq;
    let bytes = 0;
    const flush = (): boolean => {
      if (batch.length === 0) return true;
      if (!this.sender.sendJson(eventsFrameJson(sub, batch), 'events', 'durable')) {
        state.subscription.close();
        this.open.delete(sub);
        this.sender.send({ t: 'lagged', sub, cursor: state.lastSeq }, 'control');
        return false;
      }
      state.lastSeq = lastSeq;
      batch = [];
      bytes = 0;
      return true;
    };
    for (const event of events) {
      const json = eventJson(event);
      if (bytes + json.length > EVENTS_FRAME_BYTES && !flush()) return;
      batch.push(event);
      lastSeq = event.seq;
      bytes += json.length;
    }
    flush();
  }
}
