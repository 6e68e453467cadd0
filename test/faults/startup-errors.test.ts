/**
 * Bad input at start (issue 7): a bad config file, a corrupt or newer database, a data
 * directory that cannot be used, a port in use. Each gives a clear message and a non-zero
 * exit, and leaves every file of the data directory as it was (the log only grows).
 * test/host/start-process.test.ts covers the messages of bad flags, the two databases and
 * the port; this file adds the other inputs and checks, for each, that nothing changed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;

let temp: TempDir;
let root: string;
let data: string;
const cleanups: (() => void)[] = [];

function tether(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const start = (dataDir: string, ...extra: string[]) =>
  tether(['start', '--data', dataDir, '--port', '0', '--workspace', join(root, 'ws'), ...extra]);

/** A host running on `data`, answering: its URL, its output, and its exit once signalled. */
async function runningHost(): Promise<{
  url: string;
  child: ReturnType<typeof spawn>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
}> {
  const child = spawn(
    process.execPath,
    [bin, 'start', '--data', data, '--port', '0', '--workspace', join(root, 'ws')],
    { env: { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file' } },
  );
  cleanups.push(() => child.kill('SIGKILL'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`the host exited (${code ?? signal}) before listening: ${err}`)),
    );
  });
  // Answered means its event loop has run, so its SIGTERM handler is in place.
  expect((await fetch(`${url}/v1/health`)).ok).toBe(true);
  return { url, child, exited, stdout: () => out };
}

/** Starts and stops a host once, so the data directory holds a real store, key and log. */
async function prepareDataDir(): Promise<void> {
  const { child, exited } = await runningHost();
  child.kill('SIGTERM');
  expect((await exited).code).toBe(0);
}

function eventTypes(): string[] {
  const db = new Database(join(data, 'tether.db'), { readonly: true });
  const types = db.prepare('SELECT type FROM events ORDER BY seq').all() as { type: string }[];
  db.close();
  return types.map((row) => row.type);
}

/** Every file under `dir`: its bytes' SHA-256 (the log: its content, which may only grow). */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const bytes = readFileSync(path);
        const name = relative(dir, path);
        files.set(
          name,
          name.startsWith('logs/')
            ? bytes.toString('utf8')
            : createHash('sha256').update(bytes).digest('hex'),
        );
      }
    }
  };
  walk(dir);
  return files;
}

function expectUnchanged(before: Map<string, string>, after: Map<string, string>): void {
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  for (const [name, value] of before) {
    if (name.startsWith('logs/')) expect(after.get(name)!.startsWith(value), name).toBe(true);
    else expect(after.get(name), name).toBe(value);
  }
}

/** Exits non-zero with one clear message on stderr, having printed no listening line. */
function expectRefused(
  result: { code: number | null; stdout: string; stderr: string },
  code: number,
  message: RegExp,
): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n').length, result.stderr).toBeLessThanOrEqual(2);
  expect(result.stdout).not.toMatch(/listening on/);
}

beforeEach(() => {
  temp = tempDir('tether-startup-');
  root = temp.path;
  data = join(root, 'data');
  mkdirSync(join(root, 'ws'));
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  temp.remove();
});

describe('tether start refuses bad input and changes nothing', () => {
  it('a config file that is not JSON, has wrong types, or unknown keys', async () => {
    await prepareDataDir();
    const cases: [string, RegExp][] = [
      ['{"port": 80,', /config file .*config\.json: \(file\): not valid JSON/],
      ['{"port": "eighty"}', /config file .*config\.json: port: /],
      ['{"prot": 8080}', /config file .*config\.json: .*prot/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(join(data, 'config.json'), text, { mode: 0o600 });
      const before = snapshot(data);
      expectRefused(await start(data), 2, message);
      expectUnchanged(before, snapshot(data));
    }
  }, 60_000);

  it('a corrupt database and a newer one are left exactly as they were', async () => {
    await prepareDataDir();
    const db = join(data, 'tether.db');
    const good = readFileSync(db);
    // Damaged: a page in the middle overwritten (the header still says SQLite).
    const damaged = Buffer.from(good);
    damaged.fill(0xa5, 4096, Math.min(damaged.length, 4096 * 3));
    writeFileSync(db, damaged);
    let before = snapshot(data);
    expectRefused(await start(data), 2, /tether\.db/);
    expectUnchanged(before, snapshot(data));

    writeFileSync(db, good);
    const newer = new Database(db);
    newer.prepare('INSERT INTO schema_migrations VALUES (99, ?, 0)').run('from the future');
    newer.close();
    before = snapshot(data);
    expectRefused(await start(data), 2, /schema version 99, newer than this Tether/);
    expectUnchanged(before, snapshot(data));
  }, 60_000);

  it('a data path that is a file, or whose parent cannot be made', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'not a folder');
    // The message names the data directory, not the config file inside it.
    expectRefused(await start(file), 2, /data directory.*a-file.*cannot be the data directory/);
    expect(readFileSync(file, 'utf8')).toBe('not a folder');

    expectRefused(
      await start(join(file, 'data')),
      2,
      /a-file\/data.*cannot be the data directory.*ENOTDIR/,
    );
    expect(statSync(file).isFile()).toBe(true);
  }, 60_000);

  it('a data directory that cannot be written', async () => {
    await prepareDataDir();
    const before = snapshot(data);
    // Root ignores file modes, so a read-only bind mount stands in where a mode cannot.
    if (process.getuid?.() === 0) {
      execFileSync('mount', ['--bind', data, data]);
      cleanups.push(() => void execFileSync('umount', ['-l', data]));
      execFileSync('mount', ['-o', 'remount,bind,ro', data]);
    } else {
      chmodSync(data, 0o500);
      cleanups.push(() => chmodSync(data, 0o700));
    }
    expectRefused(await start(data), 2, /data directory: .*cannot write in it: (EROFS|EACCES)/);
    expectUnchanged(before, snapshot(data));
  }, 60_000);

  it('a port in use: no recovery, no host.started, nothing written', async () => {
    await prepareDataDir();
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const before = snapshot(data);
    const result = await tether([
      'start',
      '--data',
      data,
      '--port',
      String(port),
      '--workspace',
      join(root, 'ws'),
    ]);
    expectRefused(result, 1, new RegExp(`port ${port} .*already in use`));
    expectUnchanged(before, snapshot(data));
    expect(eventTypes()).toEqual(['host.started', 'host.stopping']);
  }, 60_000);

  it('a missing data directory: made (0700) as docs/architecture.md says, and the start says it is new', async () => {
    const fresh = join(root, 'not', 'there', 'yet');
    data = fresh;
    const first = await runningHost();
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(first.stdout()).toContain(`data: ${fresh} (new: created now`);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(eventTypes()).toEqual(['host.started', 'host.stopping']);
    // The second start finds it: nothing says "new" any more.
    const again = await runningHost();
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    expect(again.stdout()).toContain(`data: ${fresh}\n`);
  }, 60_000);

  it('a second host on a data directory in use: refused before it reads or writes anything', async () => {
    await prepareDataDir();
    const first = await runningHost();
    const types = eventTypes();
    // The running host writes its history mark up to a second after its last commit
    // (host/store/history-mark.ts): the snapshot is taken once it says the last event.
    await until("the first host's history mark", () => {
      const mark = z
        .object({ seq: z.number() })
        .safeParse(JSON.parse(readFileSync(join(data, 'history-mark.json'), 'utf8')));
      return mark.success && mark.data.seq >= types.length ? true : undefined;
    });
    const before = snapshot(data);
    // Another port, so only the data directory is shared: recovery there would mark the
    // first host's runs interrupted and kill its commands.
    expectRefused(await start(data), 2, /another Tether host is running on the data directory/);
    expect(eventTypes()).toEqual(types);
    expectUnchanged(before, snapshot(data));
    expect((await fetch(`${first.url}/v1/health`)).ok).toBe(true);

    // The lock dies with its process, however it ends: no stale lock after a SIGKILL.
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = await runningHost();
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(eventTypes().slice(types.length)).toEqual(['host.started', 'host.stopping']);
  }, 60_000);
});
