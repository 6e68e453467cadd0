/**
 * One host's state, fed by snapshots, events and live messages; UIs subscribe to changes.
 */
import type { Event, OutputMessage, PreviewMessage, SubscribeScope } from '../../protocol/index.js';
import { EMPTY_HOST_STATE, type HostState } from './host-state.js';
import { applyEvent } from './event-reducer.js';
import { Listeners } from './listeners.js';
import { applyOutput, applyPreview } from './live-reducer.js';
import { applySnapshot } from './snapshot-reducer.js';
import { StateDraft } from './state-draft.js';

/** One host's {@link HostState}, and the listeners told of each change. */
export class HostStateStore {
  private current: HostState = EMPTY_HOST_STATE;
  /** The seq each versioned record was last changed at (see {@link StateDraft}). */
  private readonly versions = new Map<string, number>();
  private readonly listeners = new Listeners<HostState>();

  /** The state now; a new object after every change, the same one otherwise. */
  get state(): HostState {
    return this.current;
  }

  /** Calls `listener` with the new state after each change; returns the unsubscribe function. */
  subscribe(listener: (state: HostState) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Replaces the scope's records from a snapshot taken at `cursor` (throws if it is malformed). */
  applySnapshot(scope: SubscribeScope, snapshot: unknown, cursor: number): void {
    this.change((draft) => applySnapshot(draft, scope, snapshot, cursor));
  }

  /** Applies new events (seq ascending) and adds them to their runs' timelines. */
  applyEvents(events: readonly Event[]): void {
    this.change((draft) => {
      const added = new Map<string, Event[]>();
      for (const event of events) {
        applyEvent(draft, event);
        if (event.runId === null) continue;
        const list = added.get(event.runId) ?? [];
        added.set(event.runId, [...list, event]);
      }
      for (const [runId, fresh] of added) {
        draft.put('timelines', runId, mergeBySeq(draft.get('timelines', runId) ?? [], fresh));
      }
    });
  }

  applyPreview(message: PreviewMessage): void {
    this.change((draft) => applyPreview(draft, message));
  }

  applyOutput(message: OutputMessage): void {
    this.change((draft) => applyOutput(draft, message));
  }

  private change(apply: (draft: StateDraft) => void): void {
    const draft = new StateDraft(this.current, this.versions);
    apply(draft);
    const next = draft.result(this.current);
    if (next === this.current) return;
    this.current = next;
    this.listeners.emit(next);
  }
}

/** Both lists' events, each seq once, ascending; `current` itself when `fresh` adds nothing. */
function mergeBySeq(current: readonly Event[], fresh: readonly Event[]): readonly Event[] {
  const last = current.at(-1)?.seq ?? -1;
  if (fresh.every((event, i) => event.seq > (i === 0 ? last : fresh[i - 1]!.seq))) {
    return [...current, ...fresh];
  }
  const seen = new Set(current.map((event) => event.seq));
  const added = fresh.filter((event) => !seen.has(event.seq) && seen.add(event.seq));
  if (added.length === 0) return current;
  return [...current, ...added].sort((a, b) => a.seq - b.seq);
}
