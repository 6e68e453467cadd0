/**
 * Subscriptions from a cursor (docs/protocol.md §6.3): a replay of the log, or a snapshot read
 * in one transaction, then live events, with no gap and no duplicate across the switch.
 */
import type { Event } from '../../protocol/index.js';
import type { EventScope, Store } from '../store/index.js';

/** Default replay window: how far behind the head a cursor may be and still replay. */
export const REPLAY_WINDOW = 10_000;

export interface SubscribeRequest {
  afterSeq?: number;
  scope: EventScope;
  /** The device asking: a cursor of its past the head is told to the store's history. */
  deviceId?: string;
}

export interface Subscription {
  mode: 'replay' | 'snapshot';
  cursor: number;
  snapshot?: unknown;
  /**
   * Starts delivery: first every matching committed event after the cursor, then each
   * new commit as it happens. Call once, after the subscribe answer went out.
   */
  start(deliver: (events: Event[]) => void): void;
  close(): void;
}

function inScope(event: Event, scope: EventScope): boolean {
  if ('runId' in scope) return event.runId === scope.runId;
  if ('sessionId' in scope) return event.sessionId === scope.sessionId;
  return true;
}

/**
 * Opens a subscription. The cursor and the listener are set in the same synchronous step,
 * and commits publish synchronously after they happen, so no commit can fall between them.
 */
export function openSubscription(
  store: Store,
  request: SubscribeRequest,
  takeSnapshot: () => unknown,
  replayWindow = REPLAY_WINDOW,
): Subscription {
  const head = store.events.head();
  const { afterSeq, scope } = request;
  // A cursor in history this database lost (it went back in time) gets a snapshot.
  const replay =
    afterSeq !== undefined &&
    afterSeq <= head &&
    head - afterSeq <= replayWindow &&
    !store.history.isLost(afterSeq);
  if (afterSeq !== undefined && afterSeq > head && request.deviceId !== undefined) {
    // Seen by that device and not here: this database may have gone back in time.
    store.history.noteCursorPastHead(request.deviceId, afterSeq);
  }
  let snapshot: unknown;
  let cursor: number;
  if (replay) {
    cursor = afterSeq;
  } else {
    ({ snapshot, cursor } = store.read(() => ({
      snapshot: takeSnapshot(),
      cursor: store.events.head(),
    })));
  }

  // Every event published from now on commits after `head`: the log holds the rest.
  let lastSeen = head;
  let buffered: Event[] = [];
  let deliver: ((events: Event[]) => void) | null = null;
  const unsubscribe = store.subscribe((events) => {
    const fresh = events.filter((event) => event.seq > lastSeen && inScope(event, scope));
    if (fresh.length === 0) return;
    lastSeen = fresh.at(-1)!.seq;
    if (deliver === null) buffered.push(...fresh);
    else deliver(fresh);
  });

  return {
    mode: replay ? 'replay' : 'snapshot',
    cursor,
    ...(replay ? {} : { snapshot }),
    start(target) {
      if (deliver !== null) throw new Error('subscription already started');
      for (let from = cursor; from < head;) {
        const page = store.events.after(from, scope, 1000).filter((event) => event.seq <= head);
        if (page.length > 0) target(page);
        if (page.length < 1000) break;
        from = page.at(-1)!.seq;
      }
      deliver = target;
      if (buffered.length > 0) target(buffered);
      buffered = [];
    },
    close: unsubscribe,
  };
}
