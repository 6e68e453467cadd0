/**
 * The store's gate on commits: open while commits work, closed at the first disk failure
 * (every write refused with `persistence_failed`, untried) until a recovery commits
 * again; each change heard by its listeners.
 */
import {
  describeDiskFailure,
  isDiskFailure,
  persistenceFailedError,
  type PersistenceListener,
  type PersistenceState,
} from './persistence.js';

export class PersistenceGate {
  private current: PersistenceState = { ok: true };
  private readonly listeners = new Set<PersistenceListener>();

  constructor(
    private readonly now: () => number,
    /** Where a throwing listener is reported. */
    private readonly reportError: (error: unknown) => void,
  ) {}

  /** Whether commits work now. */
  get state(): PersistenceState {
    return this.current;
  }

  /** Throws `persistence_failed` while the gate is closed. */
  check(): void {
    if (!this.current.ok) throw persistenceFailedError(this.current);
  }

  /** Hears each change of {@link state}: one call per transition. */
  listen(listener: PersistenceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Turns a disk error into `persistence_failed`, closing the gate at the first one. */
  failed(error: unknown): unknown {
    if (!isDiskFailure(error)) return error;
    if (this.current.ok) {
      this.set({ ok: false, since: this.now(), message: describeDiskFailure(error) });
    }
    return persistenceFailedError(this.current, error);
  }

  /** A recovery committed: writes are accepted again. */
  open(): void {
    if (!this.current.ok) this.set({ ok: true });
  }

  private set(state: PersistenceState): void {
    this.current = state;
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch (error) {
        this.reportError(error);
      }
    }
  }
}
