/**
 * `tether start` as a real child process: the docs/protocol.md §9 contract.
 * Runs the built host (npm test builds first).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const API_KEY = 'sk-test-secret-value-123456';

let rootDir: TempDir;
let root: string;
let children: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  rootDir = tempDir('tether-start-');
  root = rootDir.path;
  mkdirSync(join(root, 'ws'));
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  rootDir.remove();
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exit: Promise<number | null>;
}

function tether(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
}

async function startHost(extra: string[] = [], env: Record<string, string> = {}): Promise<Started> {
  const run = tether(
    [
      'start',
      '--data',
      join(root, 'data'),
      '--port',
      '0',
      '--workspace',
      join(root, 'ws'),
      ...extra,
    ],
    env,
  );
  let ended: { code: number | null } | undefined;
  void run.exit.then((code) => (ended = { code }));
  // Until it listens or ends; as long as a test may take (vitest.config.ts).
  const seen = await until(
    'the host to listen or exit',
    () => ({ listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout()), ended }),
    (now) => now.listening !== null || now.ended !== undefined,
    { timeout: 30_000, interval: 20 },
  );
  if (seen.listening === null) throw new Error(`exited ${seen.ended?.code}: ${run.stderr()}`);
  return { child: run.child, url: seen.listening[1]!, stdout: run.stdout, exit: run.exit };
}

describe('tether start', () => {
  it('prints the listening line, answers health, and exits cleanly on SIGTERM', async () => {
    const host = await startHost([], {
      TETHER_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      TETHER_MODEL: 'scripted-model',
      TETHER_MODEL_API_KEY: API_KEY,
    });
    const response = await fetch(`${host.url}/v1/health`);
    const health = (await response.json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, protocol: 1, version: '0.1.0' });
    expect(String(health['hostId'])).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(host.stdout()).toContain(`(${String(health['hostId'])})`);

    host.child.kill('SIGTERM');
    expect(await host.exit).toBe(0);
    const log = readFileSync(join(root, 'data', 'logs', 'host.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
    expect(log).not.toContain(API_KEY);
    expect(host.stdout()).not.toContain(API_KEY);
  });

  it('stops gracefully on a SIGTERM sent the moment the listening line appears', async () => {
    const run = tether(['start', '--data', join(root, 'data'), '--port', '0']);
    const onData = () => {
      if (!run.stdout().includes('listening on')) return;
      run.child.stdout.off('data', onData);
      run.child.kill('SIGTERM');
    };
    run.child.stdout.on('data', onData);
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain('SIGTERM: stopping');
    const log = readFileSync(join(root, 'data', 'logs', 'host.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
  });

  it('keeps its identity across restarts and records host.started and host.stopping', async () => {
    const first = await startHost();
    const id1 = ((await (await fetch(`${first.url}/v1/health`)).json()) as { hostId: string })
      .hostId;
    first.child.kill('SIGTERM');
    await first.exit;
    const second = await startHost();
    const id2 = ((await (await fetch(`${second.url}/v1/health`)).json()) as { hostId: string })
      .hostId;
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);
    expect(id2).toBe(id1);
    const db = new Database(join(root, 'data', 'tether.db'), { readonly: true });
    const types = db.prepare('SELECT type FROM events ORDER BY seq').all() as { type: string }[];
    db.close();
    expect(types.map((row) => row.type)).toEqual([
      'host.started',
      'host.stopping',
      'host.started',
      'host.stopping',
    ]);
  });

  it('says without a model how to configure one, and still starts', async () => {
    const host = await startHost();
    expect(host.stdout()).toMatch(/model: none configured.*TETHER_MODEL_BASE_URL/);
    host.child.kill('SIGTERM');
    expect(await host.exit).toBe(0);
  });

  it('refuses bad flags with a clear message and exit code 2', async () => {
    const run = tether(['start', '--data', join(root, 'data'), '--port', 'eighty', '--frobnicate']);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(/--port/);
    expect(run.stderr()).toMatch(/--frobnicate/);
  });

  it('refuses a database newer than it understands, and one that is not a database', async () => {
    const data = join(root, 'data');
    mkdirSync(data);
    const db = new Database(join(data, 'tether.db'));
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at INTEGER)',
    );
    db.prepare('INSERT INTO schema_migrations VALUES (99, ?, 0)').run('from the future');
    db.close();
    const newer = tether(['start', '--data', data, '--port', '0', '--workspace', join(root, 'ws')]);
    expect(await newer.exit).toBe(2);
    expect(newer.stderr()).toMatch(/schema version 99, newer than this Tether/);

    rmSync(data, { recursive: true });
    mkdirSync(data);
    writeFileSync(join(data, 'tether.db'), 'this is not sqlite'.repeat(100));
    const corrupt = tether([
      'start',
      '--data',
      data,
      '--port',
      '0',
      '--workspace',
      join(root, 'ws'),
    ]);
    expect(await corrupt.exit).toBe(2);
    expect(corrupt.stderr()).toMatch(/tether\.db/);
  });

  it('says the port is taken instead of crashing', async () => {
    const first = await startHost();
    const port = new URL(first.url).port;
    const second = tether([
      'start',
      '--data',
      join(root, 'data2'),
      '--port',
      port,
      '--workspace',
      join(root, 'ws'),
    ]);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toMatch(new RegExp(`port ${port} .*already in use`));
  });
});
