/**
 * Client storage in IndexedDB, for the PWA: one object store of JSON text by key; a write
 * resolves when its transaction has committed (strict durability where supported).
 */
import { parseJson, TetherError } from '../../../protocol/index.js';
import type { ClientStorage } from '../storage.js';

const STORE = 'kv';

/** {@link ClientStorage} in the browser; open it with {@link IndexedDbStorage.open}. */
export class IndexedDbStorage implements ClientStorage {
  private constructor(private readonly db: IDBDatabase) {}

  /** Opens (creating on first use) the database `name`. */
  static open(name = 'tether-client', factory: IDBFactory = indexedDB): Promise<IndexedDbStorage> {
    return new Promise((resolve, reject) => {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(new IndexedDbStorage(request.result));
      request.onerror = () => reject(storageError('open', request.error));
      request.onblocked = () => reject(storageError('open', 'blocked by another tab'));
    });
  }

  async get(key: string): Promise<unknown> {
    const text = await this.run('readonly', (store) => store.get(key) as IDBRequest<unknown>);
    return typeof text === 'string' ? parseJson(text, `stored ${key}`) : undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.run('readwrite', (store) => store.put(JSON.stringify(value), key));
  }

  async delete(key: string): Promise<void> {
    await this.run('readwrite', (store) => store.delete(key));
  }

  /** Runs one request in its own transaction; resolves with its result once that commits. */
  private run<T>(
    mode: IDBTransactionMode,
    action: (store: IDBObjectStore) => IDBRequest<T>,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const transaction = this.db.transaction(STORE, mode, { durability: 'strict' });
      const request = action(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = transaction.onabort = () =>
        reject(storageError(mode, transaction.error ?? request.error));
    });
  }
}

function storageError(what: string, cause: unknown): TetherError {
  return new TetherError('internal', `IndexedDB ${what} failed`, { cause });
}
