/**
 * The history mark: `<dataDir>/history-mark.json`, the highest event seq the data
 * directory's database is known to have reached, kept outside the database so that a
 * database that went back in time (a copy from `backups/` put over it, a WAL cut by damaged
 * storage) is noticed at the next start (docs/reliability.md, "A store that went back in
 * time").
 *
 * It is written off the commit path: at most once per {@link MARK_FLUSH_MS} after commits,
 * and at close, by write, fsync and rename (a few dozen bytes: the write is synchronous, so
 * no older mark can land after a newer one). So it may lag the database (it can only
 * under-report a loss), never lead it.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Longest a committed seq waits before the mark says it. */
const MARK_FLUSH_MS = 1_000;

const HISTORY_MARK_FILE = 'history-mark.json';

const MarkFile = z.looseObject({
  v: z.literal(1),
  /** Which database the mark speaks of (`databaseIdentity`). */
  database: z.string(),
  /** The highest event seq that database was seen to reach. */
  seq: z.int().check(z.nonnegative()),
  /** When it was written (ms since the epoch). */
  at: z.number(),
});
export type HistoryMark = z.infer<typeof MarkFile>;

/** What the file said: a mark, nothing (no file yet), or why it could not be read. */
export type MarkReading = { mark: HistoryMark } | { mark: null; problem?: string };

/** Reads `<dataDir>/history-mark.json`. A missing file is no mark; a torn one a problem. */
export function readHistoryMark(dataDir: string): MarkReading {
  const path = join(dataDir, HISTORY_MARK_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { mark: null };
    return { mark: null, problem: `${path} cannot be read: ${String(error)}` };
  }
  try {
    const parsed = MarkFile.safeParse(JSON.parse(text));
    if (parsed.success) return { mark: parsed.data };
    return { mark: null, problem: `${path} is not a history mark` };
  } catch {
    return { mark: null, problem: `${path} is not JSON` };
  }
}

function markText(database: string, seq: number, at: number): string {
  return JSON.stringify({ v: 1, database, seq, at } satisfies HistoryMark) + '\n';
}

/**
 * Keeps the mark of one open database: {@link note} each committed seq (memory only), and
 * the file follows within {@link MARK_FLUSH_MS}; {@link close} writes it at once.
 */
export class HistoryMarkWriter {
  private readonly path: string;
  private written: number;
  private wanted: number;
  private timer: NodeJS.Timeout | null = null;

  /** `seq`: what the file says now (after {@link writeNow} at open). */
  constructor(
    dataDir: string,
    private readonly database: string,
    seq: number,
    private readonly now: () => number,
    private readonly reportError: (error: unknown) => void,
  ) {
    this.path = join(dataDir, HISTORY_MARK_FILE);
    this.written = seq;
    this.wanted = seq;
  }

  /** The highest seq noted: the file says it within {@link MARK_FLUSH_MS}. */
  get seq(): number {
    return this.wanted;
  }

  /** Notes a committed seq. */
  note(seq: number): void {
    if (seq <= this.wanted) return;
    this.wanted = seq;
    if (this.timer === null) this.schedule();
  }

  /** Writes the mark now, synchronously (at open and at close). */
  writeNow(): void {
    const temp = `${this.path}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, markText(this.database, this.wanted, this.now()));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    this.written = this.wanted;
  }

  /** Stops the timer and writes what is noted and not yet written. */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.wanted === this.written) return;
    try {
      this.writeNow();
    } catch (error) {
      this.reportError(error);
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.writeNow();
      } catch (error) {
        this.reportError(error);
      }
    }, MARK_FLUSH_MS);
    this.timer.unref();
  }
}
