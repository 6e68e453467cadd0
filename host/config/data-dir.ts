/**
 * Making sure the data directory exists and is usable.
 */
import { mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

/**
 * Creates `dir` (and missing parents) with mode 0700 if needed, then proves it is a
 * writable folder by creating and removing a probe file. An existing folder's mode is
 * left alone: `--data` may name a folder the user already has.
 *
 * @returns whether the folder was created now.
 * @throws ConfigError naming the folder and what failed.
 */
export function ensureDataDir(dir: string): { created: boolean } {
  let step = 'create it';
  try {
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined;
    step = 'use it';
    if (!statSync(dir).isDirectory()) throw new Error('not a folder');
    step = 'write in it';
    const probe = join(dir, `.write-test-${process.pid}`);
    writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    unlinkSync(probe);
    return { created };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError([
      { source: 'data directory', field: dir, message: `cannot ${step}: ${reason}` },
    ]);
  }
}
