/**
 * Listener sets: how the client reports changes. A listener that throws does not stop the
 * others or the client; its error is rethrown on its own, where the runtime reports it.
 */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** Adds a listener; returns the function that removes it. */
  add(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }

  emit(value: T): void {
    for (const listener of [...this.set]) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
