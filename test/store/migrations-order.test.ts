/**
 * The migrations list is append-only: a database records only its highest version and
 * applies the migrations above it, so a migration numbered below one that has landed would
 * never run on a database that already has the later one. Version 6 was set aside for a
 * change that had not landed when 7 did; it stays unused.
 */
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../host/store/migrations.js';

/** Versions on main, in order. Append the new one when a migration lands; never insert. */
const LANDED = [1, 2, 3, 4, 5, 7];

describe('migrations', () => {
  const versions = MIGRATIONS.map((migration) => migration.version);

  it('start with every version that has landed, in order, and only add after them', () => {
    expect(versions.slice(0, LANDED.length)).toEqual(LANDED);
    for (const later of versions.slice(LANDED.length))
      expect(later).toBeGreaterThan(LANDED.at(-1)!);
  });

  it('rise strictly, and the last is the schema version the host writes', () => {
    for (let i = 1; i < versions.length; i += 1)
      expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
    expect(SCHEMA_VERSION).toBe(versions.at(-1));
  });

  it('have distinct names', () => {
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
