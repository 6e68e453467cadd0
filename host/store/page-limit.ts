/**
 * A database that cannot grow, on demand, for the fault tests (docs/testing.md,
 * "Disk full"): with `TETHER_FAULTS=1` and `TETHER_FAULT_DB_MAX_PAGES=<file>`, the store
 * applies `PRAGMA max_page_count` from that file before each commit, so a test running the
 * real host can make SQLite fail with a real SQLITE_FULL, then give the space back.
 */
import { readFileSync } from 'node:fs';
import type { Db } from './database.js';

/**
 * Reads the control file and applies what it says when it changed: `+N` allows N pages
 * past the current size, `N` caps the file at N pages, empty or `none` lifts the cap.
 */
export class PageLimitControl {
  private applied: string | null = null;
  private defaultMax: number | null = null;

  constructor(private readonly file: string) {}

  apply(db: Db): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8').trim();
    } catch {
      text = '';
    }
    if (text === this.applied) return;
    this.applied = text;
    this.defaultMax ??= Number(db.pragma('max_page_count', { simple: true }));
    const relative = /^\+(\d+)$/.exec(text);
    let max = this.defaultMax;
    if (relative !== null) {
      max = Number(db.pragma('page_count', { simple: true })) + Number(relative[1]);
    } else if (/^\d+$/.test(text)) {
      max = Number(text);
    }
    db.pragma(`max_page_count = ${max}`);
  }
}
