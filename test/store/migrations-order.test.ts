/**
 * Migrations numbered in parallel may land out of order (7 landed before 6): a database
 * applies every version it has not recorded, not only those above its highest, so one
 * opened at 7 still gets 6. The list keeps versions distinct and rising.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../host/store/database.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../host/store/migrations.js';
import { tempDir } from '../support/temp-dir.js';

describe('migrations', () => {
  it('rise strictly with distinct names, and the last is the schema version the host writes', () => {
    const versions = MIGRATIONS.map((migration) => migration.version);
    for (let i = 1; i < versions.length; i += 1) {
      expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
    }
    expect(SCHEMA_VERSION).toBe(versions.at(-1));
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('a database at 7 that never had 6 gets 6 at the next open, and keeps its rows', async () => {
    using dir = tempDir('tether-migrations-');
    const path = join(dir.path, 'tether.db');
    (await openDatabase(path)).close();
    // As a database made by a build that had 7 but not yet 6.
    const raw = new Database(path);
    raw.exec('DROP TABLE session_summaries; DELETE FROM schema_migrations WHERE version = 6');
    raw.exec("CREATE TABLE keep_me (x); INSERT INTO keep_me VALUES ('still here')");
    raw.close();

    const db = await openDatabase(path);
    try {
      const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
      expect(versions).toEqual(MIGRATIONS.map((migration) => ({ version: migration.version })));
      expect(db.prepare('SELECT COUNT(*) AS n FROM session_summaries').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT x FROM keep_me').get()).toEqual({ x: 'still here' });
    } finally {
      db.close();
    }
  });
});
