/**
 * Noticing that the database file was removed or replaced under a running host (its data
 * directory deleted, a volume unmounted, a restore copied over it). SQLite keeps writing
 * to the file it has open, so every commit would still "succeed" into a file nobody will
 * open again: all of it lost at the next start. The guard makes such commits fail as a
 * disk failure, so the host refuses them and says so, like a full disk.
 */
import { statSync } from 'node:fs';

/** The failure a guarded commit meets: an errno code that the store reads as a disk failure. */
class DatabaseFileGone extends Error {
  override readonly name = 'DatabaseFileGone';
  readonly code = 'ESTALE';
}

export class DatabaseFileGuard {
  private readonly dev: number;
  private readonly ino: number;

  /** Remembers which file `path` is now (the store has just opened it). */
  constructor(private readonly path: string) {
    const stat = statSync(path);
    this.dev = stat.dev;
    this.ino = stat.ino;
  }

  /** Throws {@link DatabaseFileGone} unless `path` is still the file opened at the start. */
  check(): void {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (stat?.dev === this.dev && stat.ino === this.ino) return;
    throw new DatabaseFileGone(
      `the database file ${this.path} was ${stat === undefined ? 'removed' : 'replaced'} while the host ran; nothing more is committed: restart the host`,
    );
  }
}
