/**
 * Opening the SQLite file: durability pragmas, version checks and migrations.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';
import { errorMessage } from '../../protocol/index.js';

export type Db = Database.Database;

/** Thrown when the database cannot be used as it is; the message says what to do. */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
}

function appliedVersion(db: Db): number {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

function appliedVersions(db: Db): Set<number> {
  const rows = db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[];
  return new Set(rows.map((row) => row.version));
}

function applyMigration(db: Db, migration: Migration, now: number): void {
  db.transaction(() => {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      migration.version,
      migration.name,
      now,
    );
  }).immediate();
}

/**
 * Opens (or creates) the database at `path` in WAL mode with `synchronous=FULL`, foreign
 * keys and a busy timeout, then applies pending migrations, each in a transaction, after an
 * online backup of an existing database into `backups/` beside it.
 */
export async function openDatabase(path: string, now = Date.now()): Promise<Db> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let db: Db;
  try {
    db = new Database(path);
    // Before WAL: SQLite gives the -wal and -shm files the database file's mode.
    chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
  } catch (cause) {
    throw new StoreOpenError(`cannot open the database ${path}: ${String(cause)}`, { cause });
  }
  try {
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const integrity = db.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') {
      // quick_check lists one problem a line: the message stays one line.
      const problems = String(integrity)
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('***'));
      const more = problems.length > 1 ? ` and ${problems.length - 1} more problems` : '';
      throw new StoreOpenError(
        `the database ${path} is damaged (${problems[0] ?? 'quick_check failed'}${more}); restore a copy from ${join(dirname(path), 'backups')} or move it away to start fresh`,
      );
    }
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const version = appliedVersion(db);
    if (version > SCHEMA_VERSION) {
      throw new StoreOpenError(
        `the database ${path} has schema version ${version}, newer than this Tether understands (${SCHEMA_VERSION}); run a newer Tether`,
      );
    }
    // By version applied, not by the highest: migrations numbered in parallel may land out
    // of order (7 before 6), and a database at 7 must still get 6.
    const applied = appliedVersions(db);
    const pending = MIGRATIONS.filter((migration) => !applied.has(migration.version));
    if (pending.length > 0 && version > 0) {
      const backupDir = join(dirname(path), 'backups');
      mkdirSync(backupDir, { recursive: true, mode: 0o700 });
      await db.backup(join(backupDir, `tether-v${version}-${now}.db`));
    }
    for (const migration of pending) applyMigration(db, migration, now);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StoreOpenError) throw error;
    const message = errorMessage(error);
    throw new StoreOpenError(`cannot use the database ${path}: ${message}`, { cause: error });
  }
}

/**
 * A LIMIT whose count is bound: `LIMIT +?`, not a plain parameter. SQLite (3.47 and later)
 * reads a plain `?` there while it plans the statement, so it compiles the statement again at
 * every run, each binding being "a value the plan depends on": a one-row read of runs
 * cost 13 µs instead of 4. The unary plus hides the parameter from the planner, which
 * then plans as for an unknown count (as SQLite did before). test/store/bound-limit.test.ts
 * holds every statement of the store to it.
 */
export const BOUND_LIMIT = 'LIMIT +?';

/** A `prepare` that compiles each SQL text once per database and reuses it. */
export function cachedPrepare(db: Db): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
