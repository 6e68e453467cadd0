/**
 * One host per data directory: a second `tether start` on the same folder (on another
 * port, say) would run recovery on a live host's database, mark its runs interrupted and
 * kill its commands. The lock is an exclusive SQLite lock on `<dataDir>/host.lock`: the
 * operating system drops it when the process ends, however it ends, so a host killed with
 * SIGKILL leaves no stale lock behind.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreOpenError } from './database.js';

/** Held while the host runs; {@link release} is safe to call more than once. */
export interface DataDirLock {
  release(): void;
}

/**
 * Takes the data directory's lock, or throws StoreOpenError saying another host holds it.
 * Call before anything in the folder is read or written.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, 'host.lock');
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: 0 });
    // A transaction left open holds the file's exclusive lock until the connection closes.
    // Nothing is written: the file stays empty, and a refused start changes no byte.
    db.exec('BEGIN EXCLUSIVE');
  } catch (cause) {
    db?.close();
    const code = (cause as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new StoreOpenError(
        `another Tether host is running on the data directory ${dataDir} (it holds ${path}); stop it first, or pass another --data`,
        { cause },
      );
    }
    throw new StoreOpenError(`cannot lock the data directory ${dataDir}: ${String(cause)}`, {
      cause,
    });
  }
  let held: Database.Database | undefined = db;
  return {
    release() {
      held?.close();
      held = undefined;
    },
  };
}
