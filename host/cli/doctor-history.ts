/**
 * The doctor's `history` check: whether the database went back in time (a copy from
 * `backups/` put over it, a WAL cut by damaged storage). It reads what the host recorded
 * and not yet acknowledged, and, for a database the host has not opened since, compares
 * the history mark with the seqs the database handed out, as the host does at start.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  allocatedHead,
  databaseIdentity,
  describeRewind,
  readHistoryMark,
  unacknowledgedRewinds,
} from '../store/index.js';
import { tetherCommand } from '../../common/cli/index.js';
import type { CheckResult } from './doctor-checks.js';
import { errorMessage } from '../../protocol/index.js';

const acknowledge = () =>
  `see what your devices show of the runs after that point, then ${tetherCommand()} history --acknowledge`;

/** What the database and the mark beside it say of the history; skipped without a database. */
export function checkHistory(dataDir: string): CheckResult {
  const path = join(dataDir, 'tether.db');
  if (!existsSync(path)) return { id: 'history', status: 'skip', detail: 'no database yet' };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    const why = errorMessage(error);
    return { id: 'history', status: 'skip', detail: `cannot read ${path}: ${why}` };
  }
  try {
    const rewinds = unacknowledgedRewinds(db);
    const latest = rewinds.at(-1);
    if (latest !== undefined) {
      const more = rewinds.length > 1 ? `, and ${rewinds.length - 1} earlier time(s)` : '';
      return {
        id: 'history',
        status: 'fail',
        detail: `${describeRewind(latest)} (found ${new Date(latest.detectedAt).toISOString()}${more})`,
        fix: acknowledge(),
      };
    }
    const allocated = allocatedHead(db);
    const { mark } = readHistoryMark(dataDir);
    if (mark !== null && mark.database === databaseIdentity(db) && mark.seq > allocated) {
      const head = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events').pluck().get() as number;
      const rewind = { source: 'mark' as const, head, knownHead: mark.seq, deviceId: null };
      return {
        id: 'history',
        status: 'fail',
        detail: `${describeRewind(rewind)} (the host records it at its next start)`,
        fix: acknowledge(),
      };
    }
    return {
      id: 'history',
      status: 'pass',
      detail: `events up to ${allocated}, none lost as far as is known`,
    };
  } catch (error) {
    const why = errorMessage(error);
    return { id: 'history', status: 'skip', detail: `cannot tell: ${why}` };
  } finally {
    db.close();
  }
}
