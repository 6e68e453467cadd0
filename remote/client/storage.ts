/**
 * Where a client installation keeps its device identity, paired hosts and outbox:
 * IndexedDB in the browser, a 0600 JSON file in Node, memory in tests.
 */

/** Async key-value storage of JSON values. Writes are durable once their promise resolves. */
export interface ClientStorage {
  /** The stored value, or undefined when the key has none. */
  get(key: string): Promise<unknown>;
  /** Stores a JSON-serialisable value. */
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Storage that lasts as long as the object: tests, and clients that keep nothing. */
export class MemoryStorage implements ClientStorage {
  private readonly values = new Map<string, string>();

  get(key: string): Promise<unknown> {
    const text = this.values.get(key);
    return Promise.resolve(text === undefined ? undefined : (JSON.parse(text) as unknown));
  }

  set(key: string, value: unknown): Promise<void> {
    // Kept as JSON text, so callers can never share or mutate a stored object.
    this.values.set(key, JSON.stringify(value));
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}
