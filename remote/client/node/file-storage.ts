/**
 * Client storage in one JSON file, for Node remotes: created 0600 in a 0700 directory,
 * replaced atomically (temp file, fsync, rename, fsync of the directory) on every write.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { parseJson, parseWith } from '../../../protocol/index.js';
import type { ClientStorage } from '../storage.js';

const StoredValues = z.record(z.string(), z.unknown());

/** {@link ClientStorage} in one JSON file (mode 0600), for the CLI and Node remotes. */
export class FileStorage implements ClientStorage {
  private queue: Promise<unknown> = Promise.resolve();

  /** `path`: the JSON file; its directory is created (0700) on the first write. */
  constructor(readonly path: string) {}

  async get(key: string): Promise<unknown> {
    await this.queue;
    return (await this.read())[key];
  }

  set(key: string, value: unknown): Promise<void> {
    return this.serially(async () => {
      const values = await this.read();
      values[key] = value;
      await this.write(values);
    });
  }

  delete(key: string): Promise<void> {
    return this.serially(async () => {
      const values = await this.read();
      if (!Object.hasOwn(values, key)) return;
      delete values[key];
      await this.write(values);
    });
  }

  /** Every value; an absent file holds none. A file that is not a JSON object throws. */
  private async read(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    return parseWith(StoredValues, parseJson(text, this.path), this.path);
  }

  private async write(values: Record<string, unknown>): Promise<void> {
    const directory = dirname(this.path);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const temp = join(directory, `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    const file = await open(temp, 'wx', 0o600);
    try {
      try {
        await file.writeFile(JSON.stringify(values));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    // The rename is durable only once the directory entry is.
    const dir = await open(directory, 'r');
    try {
      await dir.sync();
    } catch {
      // Some file systems refuse fsync on a directory; the data itself is synced.
    } finally {
      await dir.close();
    }
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
