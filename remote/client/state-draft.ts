/**
 * One batch of changes to a {@link HostState}: collections are copied on first write, and
 * records carry the seq they were last changed at, so an older snapshot or event never
 * overwrites a newer fact (several subscriptions may deliver the same host's facts).
 */
import type { HostState } from './host-state.js';

type Key = keyof HostState;
type ValueOf<K extends Key> = HostState[K] extends Readonly<Record<string, infer V>> ? V : never;

/** Collections whose records are versioned by seq. */
export type VersionedKey = 'sessions' | 'runs' | 'toolCalls' | 'approvals' | 'devices';

/** A batch of changes over a base state and the shared record versions. */
export class StateDraft {
  private readonly next: { -readonly [K in Key]: HostState[K] };
  private readonly copied = new Set<Key>();
  private changed = false;

  constructor(
    base: HostState,
    private readonly versions: Map<string, number>,
  ) {
    this.next = { ...base };
  }

  get<K extends Key>(key: K, id: string): ValueOf<K> | undefined {
    return (this.next[key] as Readonly<Record<string, ValueOf<K>>>)[id];
  }

  all<K extends Key>(key: K): ValueOf<K>[] {
    return Object.values(this.next[key] as Readonly<Record<string, ValueOf<K>>>);
  }

  /** Sets (or with undefined removes) a value, unversioned. */
  put<K extends Key>(key: K, id: string, value: ValueOf<K> | undefined): void {
    const current = this.get(key, id);
    if (current === value) return;
    const collection = this.writable(key);
    if (value === undefined) delete collection[id];
    else collection[id] = value;
    this.changed = true;
  }

  /**
   * Changes a record as of `seq`: skipped when the record was changed at `seq` or later,
   * or when `change` returns undefined (nothing to change).
   */
  update<K extends VersionedKey>(
    key: K,
    id: string,
    seq: number,
    change: (current: ValueOf<K> | undefined) => ValueOf<K> | undefined,
  ): void {
    const version = `${key}:${id}`;
    if (seq <= (this.versions.get(version) ?? -1)) return;
    const value = change(this.get(key, id));
    if (value === undefined) return;
    this.versions.set(version, seq);
    this.put(key, id, value);
  }

  /** Removes a record unless it was changed after `seq`. */
  remove(key: VersionedKey, id: string, seq: number): void {
    const version = `${key}:${id}`;
    if ((this.versions.get(version) ?? -1) > seq) return;
    this.versions.delete(version);
    this.put(key, id, undefined);
  }

  /** The new state, or the base itself when nothing changed. */
  result(base: HostState): HostState {
    return this.changed ? this.next : base;
  }

  private writable<K extends Key>(key: K): Record<string, ValueOf<K>> {
    if (!this.copied.has(key)) {
      this.copied.add(key);
      this.next[key] = { ...this.next[key] };
    }
    return this.next[key] as Record<string, ValueOf<K>>;
  }
}
