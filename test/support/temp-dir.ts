/**
 * The one way tests make a temp folder: {@link tempDir}, a disposable resource. Within one
 * test, `await using dir = tempDir('tether-x-')` (or `using` in a synchronous test) removes
 * it when the block ends; a folder shared through hooks calls `remove()` in `afterAll`.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDirOptions {
  /**
   * Resolve symlinks in the path (default true): tmpdir may itself be a symlink
   * (/var -> /private/var on macOS), and the host and tools compare real paths.
   */
  realpath?: boolean;
}

export interface TempDir {
  /** The folder, created empty. */
  readonly path: string;
  /** Removes the folder and everything in it; a folder already gone is fine. */
  remove(this: void): void;
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A fresh empty folder `<tmpdir>/<prefix>XXXXXX`. */
export function tempDir(prefix: string, options: TempDirOptions = {}): TempDir {
  const made = mkdtempSync(join(tmpdir(), prefix));
  const path = options.realpath === false ? made : realpathSync(made);
  const remove = () => rmSync(path, { recursive: true, force: true });
  return {
    path,
    remove,
    [Symbol.dispose]: remove,
    [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }),
  };
}
