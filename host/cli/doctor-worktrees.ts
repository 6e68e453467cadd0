/**
 * The doctor's `worktrees` check (docs/worktrees.md): runs' worktrees that take disk and
 * wait for nothing. A folder in `<data>/worktrees` no open session names was left behind
 * (a removal that failed); a result nobody answered for a week waits on a review. Read
 * from the database without opening it for writing, as the host may be running.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tetherCommand } from '../../common/cli/index.js';
import type { CheckResult } from './doctor-checks.js';
import { errorMessage } from '../../protocol/index.js';

/** A result unanswered this long counts as forgotten. */
const REVIEW_STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/** Each kind of finding lists at most this many, then a count. */
const LISTED = 5;

interface OpenWorktree {
  path: string;
  branch: string;
  /** The session's last run, when it ended with a result recorded. */
  runId: string | null;
  finishedAt: number | null;
}

interface Findings {
  open: OpenWorktree[];
  /** Paths of worktrees whose session ended, with the repository they belong to. */
  ended: Map<string, string>;
}

function readFindings(db: Database.Database): Findings | undefined {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'worktrees'")
    .get();
  if (table === undefined) return undefined;
  const open = db
    .prepare(
      `SELECT w.path, w.branch,
              CASE WHEN w.head IS NOT NULL AND r.finished_at IS NOT NULL THEN r.id END AS runId,
              CASE WHEN w.head IS NOT NULL THEN r.finished_at END AS finishedAt
         FROM worktrees w
         LEFT JOIN runs r ON r.id = (
           SELECT id FROM runs WHERE session_id = w.session_id ORDER BY created_at DESC LIMIT 1)
        WHERE w.state = 'active'
        ORDER BY w.created_at`,
    )
    .all() as OpenWorktree[];
  const endedRows = db
    .prepare("SELECT path, repository FROM worktrees WHERE state != 'active'")
    .all() as { path: string; repository: string }[];
  return { open, ended: new Map(endedRows.map((row) => [row.path, row.repository])) };
}

function listed(items: string[]): string {
  const more = items.length > LISTED ? `, and ${items.length - LISTED} more` : '';
  return items.slice(0, LISTED).join(', ') + more;
}

/** What `<data>/worktrees` holds beside what the store says is open. */
export function checkWorktrees(dataDir: string, now = Date.now()): CheckResult {
  const path = join(dataDir, 'tether.db');
  if (!existsSync(path)) return { id: 'worktrees', status: 'skip', detail: 'no database yet' };
  let findings: Findings | undefined;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      findings = readFindings(db);
    } finally {
      db.close();
    }
  } catch (error) {
    const why = errorMessage(error);
    return { id: 'worktrees', status: 'skip', detail: `cannot read ${path}: ${why}` };
  }
  if (findings === undefined) {
    return { id: 'worktrees', status: 'skip', detail: 'the database has no worktrees yet' };
  }
  const folder = join(dataDir, 'worktrees');
  const openPaths = new Set(findings.open.map((worktree) => worktree.path));
  const leftBehind = existsSync(folder)
    ? readdirSync(folder)
        .map((name) => join(folder, name))
        .filter((entry) => !openPaths.has(entry))
    : [];
  const waiting = findings.open.flatMap(({ branch, runId, finishedAt }) =>
    runId === null || finishedAt === null ? [] : [{ branch, runId, finishedAt }],
  );
  const forgotten = waiting.filter((worktree) => now - worktree.finishedAt > REVIEW_STALE_AFTER_MS);

  const problems: string[] = [];
  const fixes: string[] = [];
  if (leftBehind.length > 0) {
    problems.push(`${leftBehind.length} folder(s) no open run uses: ${listed(leftBehind)}`);
    fixes.push(
      listed(
        leftBehind.map((entry) => {
          const repository = findings.ended.get(entry);
          return repository === undefined
            ? `rm -rf '${entry}'`
            : `git -C '${repository}' worktree remove --force '${entry}'`;
        }),
      ),
    );
  }
  if (forgotten.length > 0) {
    const since = (at: number) => new Date(at).toISOString().slice(0, 10);
    problems.push(
      `${forgotten.length} result(s) unanswered for over a week: ${listed(
        forgotten.map((worktree) => `${worktree.branch} (since ${since(worktree.finishedAt)})`),
      )}`,
    );
    fixes.push(
      `answer each (merge, keep or discard): ${listed(
        forgotten.map((worktree) => `${tetherCommand()} remote review ${worktree.runId}`),
      )}`,
    );
  }
  const counts = `${findings.open.length} open, ${waiting.length} waiting for review`;
  if (problems.length === 0) {
    return { id: 'worktrees', status: 'pass', detail: `${counts}; none left behind` };
  }
  return {
    id: 'worktrees',
    status: 'warn',
    detail: `${counts}; ${problems.join('; ')}`,
    fix: fixes.join('; '),
  };
}
