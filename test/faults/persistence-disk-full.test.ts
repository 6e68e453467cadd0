/**
 * Disk full during a run (issue 7): the real host process, its store made unable to
 * commit for real, once by SQLite's own SQLITE_FULL (`max_page_count`, under
 * TETHER_FAULTS=1), once by a full tmpfs (ENOSPC under SQLite), and once by moving the
 * database file away under the host (its data directory's volume gone). While commits fail:
 * every command answers `persistence_failed`, remotes are told, nothing more happens, reads
 * work. Once space returns: the stopped run is recorded as interrupted, queued runs run,
 * new commands apply.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  openSync,
  closeSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairedHost } from '../../pairing/index.js';
import type { HostMessage } from '../../protocol/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import {
  startScriptedModelServer,
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Message = HostMessage;

/** Waits for a host message matching `match`, looking first at those already received. */
async function waitFor<T extends Message>(
  channel: RawChannel,
  match: (message: Message) => message is T,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const index = channel.others.findIndex(match);
    if (index >= 0) return channel.others.splice(index, 1)[0] as T;
    if (Date.now() > deadline) throw new Error('the expected message did not come');
    const message = await channel.receive(Math.max(100, deadline - Date.now()));
    if (message === undefined) throw new Error('the channel closed');
    channel.others.push(message);
  }
}

const isEvent =
  (type: string, runId?: string) =>
  (message: Message): message is Message & { t: 'events' } =>
    message.t === 'events' &&
    message.events.some(
      (event) => event.type === type && (runId === undefined || event.runId === runId),
    );

const isStatus =
  (persistence: 'ok' | 'failed') =>
  (message: Message): message is Message & { t: 'status' } =>
    message.t === 'status' && message.persistence === persistence;

interface DiskControl {
  /** How the store is made to fail: `max_page_count` or a full tmpfs. */
  readonly method: string;
  /** Leaves the store no room to grow. */
  fill(): void;
  /** Gives the room back. */
  free(): void;
  /** What the host says failed (default: SQLite's or the disk's code). */
  readonly failure?: RegExp;
}

async function setUp(options: { dataDir?: string; env?: Record<string, string> }) {
  const model = await startScriptedModelServer();
  cleanups.push(() => model.close());
  const host = await startHostProcess({
    model: model.baseUrl,
    config: { policy: { tools: { run_command: 'allow' } } },
    env: { TETHER_FAULTS: '1', ...options.env },
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  });
  cleanups.push(() => host.dispose());
  const { host: paired } = await pairDevice(await host.pairLink());
  const channel = await RawChannel.open(paired);
  cleanups.push(() => channel.socket.socket.terminate());
  await channel.call('subscribe', {});
  return { model, host, channel, paired };
}

/** The scenario both ways of filling the disk go through. */
async function diskFullDuringARun(
  ctx: { model: ScriptedModelServer; host: HostProcess; channel: RawChannel; paired: PairedHost },
  disk: DiskControl,
): Promise<void> {
  const { model, host, channel } = ctx;
  const marker = join(host.workspace, 'after-the-failure');
  // Run A: a command whose effect (the marker) would come only after the disk fills.
  model.push(
    toolCallTurn([
      {
        id: 'call_1',
        name: 'run_command',
        arguments: JSON.stringify({ command: 'sleep 3 && touch after-the-failure' }),
      },
    ]),
  );
  const a = await channel.call('run.submit', {
    commandId: 'cmd-run-a-0000000001',
    input: { text: 'run a' },
  });
  const runA = String(a['runId']);
  // Run C waits behind A in the same session: the scheduler must not start it meanwhile.
  const c = await channel.call('run.submit', {
    commandId: 'cmd-run-c-0000000001',
    sessionId: a['sessionId'],
    input: { text: 'run c' },
  });
  const runC = String(c['runId']);
  await waitFor(channel, isEvent('tool.started', runA));
  const requestsBefore = model.requests.length;

  disk.fill();
  const big = { text: 'x'.repeat(100_000) };
  const refused = await channel.request('run.submit', {
    commandId: 'cmd-run-b-0000000001',
    input: big,
  });
  expect(refused, `${disk.method}: the first failing commit`).toMatchObject({
    ok: false,
    error: { code: 'persistence_failed', retryable: true },
  });
  const failure = disk.failure ?? /SQLITE_|ENOSPC/;
  const failed = await waitFor(channel, isStatus('failed'));
  expect(failed.message).toMatch(failure);

  // Every command is refused, untried; reads go on.
  const cancel = await channel.request('run.cancel', {
    commandId: 'cmd-cancel-c-00000001',
    runId: runC,
  });
  expect(cancel).toMatchObject({
    ok: false,
    error: { code: 'persistence_failed', retryable: true },
  });
  const small = await channel.request('run.submit', {
    commandId: 'cmd-run-d-0000000001',
    input: { text: 'd' },
  });
  expect(small).toMatchObject({ ok: false, error: { code: 'persistence_failed' } });
  const info = await channel.call('host.info');
  expect(info['persistence']).toMatchObject({ ok: false });
  expect(String((info['persistence'] as { message?: unknown }).message)).toMatch(failure);
  const listed = (await channel.call('runs.list', {})) as { runs: { id: string; state: string }[] };
  expect(listed.runs.find((run) => run.id === runC)?.state).toBe('queued');
  const got = (await channel.call('run.get', { runId: runA })) as { run: { state: string } };
  expect(got.run.state).toBe('running');
  // A connection opened now is told at once, and can read.
  const late = await RawChannel.open(ctx.paired);
  try {
    expect(await late.receive()).toMatchObject({ t: 'status', persistence: 'failed' });
    expect((await late.call('runs.list', {}))['runs']).toHaveLength(2);
  } finally {
    late.socket.socket.terminate();
  }

  // The command A was running is stopped: its effect never happens, no model request starts.
  // A fixed wait on purpose: nothing must happen, and the command would have touched its
  // marker 3 s after it started, so the wait outlasts that.
  await new Promise((resolve) => setTimeout(resolve, 4_500));
  expect(existsSync(marker)).toBe(false);
  expect(model.requests.length).toBe(requestsBefore);
  expect(
    ((await channel.call('run.get', { runId: runC })) as { run: { state: string } }).run.state,
  ).toBe('queued');

  // Space returns: the probe notices, A is settled truthfully, C runs, new commands apply.
  model.push(textTurn('c is done'));
  disk.free();
  await waitFor(channel, isStatus('ok'));
  expect(((await channel.call('host.info')) as { persistence: unknown }).persistence).toEqual({
    ok: true,
  });
  const afterA = (await channel.call('run.get', { runId: runA })) as {
    run: { state: string };
    toolCalls: { state: string; result: { summary?: string } | null }[];
  };
  expect(afterA.run.state).toBe('interrupted');
  expect(afterA.toolCalls.map((call) => call.state)).toEqual(['unknown']);
  expect(afterA.toolCalls[0]?.result?.summary).toMatch(/store could not commit/);
  const finishedC = await until(
    'run C to succeed',
    async () =>
      ((await channel.call('run.get', { runId: runC })) as { run: { state: string } }).run.state,
    (state) => state === 'succeeded',
    { interval: 100 },
  );
  expect(finishedC).toBe('succeeded');
  model.push(textTurn('b is done'));
  const applied = await channel.call('run.submit', {
    commandId: 'cmd-run-b-0000000001',
    input: big,
  });
  expect(applied['deduplicated']).toBe(false);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(existsSync(marker)).toBe(false);
  expect(host.output()).not.toMatch(/unhandled|uncaught/i);
}

describe('disk full during a run', () => {
  it('SQLite cannot grow the database (SQLITE_FULL): refused, told, stopped, then resumed', async () => {
    const controlDir = tempDir('tether-pages-');
    cleanups.push(controlDir.remove);
    const control = join(controlDir.path, 'max-pages');
    writeFileSync(control, 'none');
    const ctx = await setUp({ env: { TETHER_FAULT_DB_MAX_PAGES: control } });
    await diskFullDuringARun(ctx, {
      method: 'max_page_count',
      fill: () => writeFileSync(control, '+0'),
      free: () => writeFileSync(control, 'none'),
    });
    // One log line per transition, not one per refused commit.
    const log = readFileSync(join(ctx.host.dataDir, 'logs', 'host.log'), 'utf8');
    expect(log.match(/the store cannot commit: commands are refused/g)).toHaveLength(1);
    expect(log.match(/commits work again/g)).toHaveLength(1);
  }, 90_000);

  it('the database file moved away under the host (its volume gone), then back: the same', async () => {
    const ctx = await setUp({});
    // SQLite would go on committing into the file it holds open, which nobody would open
    // again: everything after the move would be lost at the next start.
    const db = join(ctx.host.dataDir, 'tether.db');
    const away = join(ctx.host.dataDir, 'tether.db.moved-away');
    await diskFullDuringARun(ctx, {
      method: 'database file moved',
      fill: () => renameSync(db, away),
      free: () => renameSync(away, db),
      failure: /ESTALE: the database file .*tether\.db was removed while the host ran/,
    });
  }, 90_000);

  it('the disk itself is full (a tmpfs of a few MB): the same, from ENOSPC under SQLite', async (test) => {
    const temp = tempDir('tether-tmpfs-');
    cleanups.push(temp.remove);
    const root = temp.path;
    const mountPoint = join(root, 'disk');
    mkdirSync(mountPoint);
    let mounted: boolean;
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], {
        stdio: 'ignore',
      });
      mounted = true;
      cleanups.push(() => void execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' }));
    } catch {
      mounted = false;
    }
    if (!mounted) {
      // No mount here: the same scenario through max_page_count, so nothing passes untested.
      const control = join(root, 'max-pages');
      writeFileSync(control, 'none');
      await test.annotate('tmpfs mount not permitted: fell back to max_page_count');
      const ctx = await setUp({ env: { TETHER_FAULT_DB_MAX_PAGES: control } });
      await diskFullDuringARun(ctx, {
        method: 'max_page_count (fallback)',
        fill: () => writeFileSync(control, '+0'),
        free: () => writeFileSync(control, 'none'),
      });
      return;
    }
    const dataDir = join(mountPoint, 'data');
    const ctx = await setUp({ dataDir });
    const ballast = join(mountPoint, 'ballast');
    await diskFullDuringARun(ctx, {
      method: 'tmpfs',
      fill: () => {
        const fd = openSync(ballast, 'w');
        const chunk = Buffer.alloc(64 * 1024, 1);
        try {
          for (;;) writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(fd);
        }
        // The last few bytes too, so not even one page fits.
        const tail = openSync(ballast, 'a');
        try {
          for (;;) writeSync(tail, Buffer.alloc(512, 1));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(tail);
        }
      },
      free: () => unlinkSync(ballast),
    });
  }, 90_000);
});
