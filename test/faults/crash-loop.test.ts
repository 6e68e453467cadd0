/**
 * The crash loop (docs/reliability.md): 200 scripted runs, each appending one unique line
 * through an allowed command, while the host process is SIGKILLed at random moments
 * (seeded; the seed is printed, `TETHER_CRASH_SEED=<n>` replays it) and restarted. A Node
 * client stays subscribed throughout and submits through its outbox. A run interrupted by
 * a kill is continued (`run.continue`) until a continuation ends on its own.
 *
 * Afterwards: every run is terminal, no line was appended twice, seq only ever rose,
 * every event the client received is in the store, unchanged, in the same order, and no
 * command's process group is alive or left to kill.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Event } from '../../protocol/index.js';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { groupAlive, MARK_SCRIPT, startFaultHost, type FaultHost } from '../support/fault-host.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const RUNS = 200;
/** Chance that a run's submission is followed by a kill, and the latest moment for it. */
const KILL_CHANCE = 0.07;
const KILL_WITHIN_MS = 300;
/**
 * The latest moment for a kill aimed at a command, after its tool.started reached the
 * client: the command waits 50 ms before it appends, so such kills land before the line,
 * after it, or after the exit but before the result committed.
 */
const AIMED_KILL_WITHIN_MS = 120;
const SLOW_MARK_SCRIPT = `sleep 0.05\n${MARK_SCRIPT}`;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);

/** mulberry32: a small seeded PRNG, so a failing schedule can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let fault: FaultHost | undefined;
let client: TetherClient | undefined;
const root = tempDir('tether-crash-loop-', { realpath: false });

afterAll(async () => {
  await client?.close();
  await fault?.dispose();
  root.remove();
});

describe('the crash loop', () => {
  it(`${RUNS} runs with the host SIGKILLed at random moments: nothing lost, nothing twice`, async () => {
    const seed = Number(process.env['TETHER_CRASH_SEED'] ?? Date.now() % 2 ** 31);
    console.log(`crash loop seed: ${seed} (TETHER_CRASH_SEED=${seed} replays the schedule)`);
    const random = prng(seed);
    const host = await startFaultHost({ scripts: { 'slow-mark.sh': SLOW_MARK_SCRIPT } });
    fault = host;
    client = new TetherClient({
      storage: new FileStorage(join(root.path, 'client.json')),
      socketFactory: nodeWebSocketFactory(),
      settings: { backoff: { baseMs: 50, maxMs: 400 }, requestTimeoutMs: 60_000 },
    });
    const paired = await client.pair(await host.host.pairLink(), {
      name: 'Crash loop',
      platform: 'node',
    });
    const connection = await client.connect(paired.hostId);
    const received: Event[] = [];
    const finished = new Map<string, string>();
    const idle = new Set<string>();
    const started = new Set<string>();
    const subscription = connection.subscribeEvents(
      {},
      {
        afterSeq: 0,
        onEvents: (batch) => {
          for (const event of batch) {
            received.push(event);
            if (event.type === 'run.finished' && event.runId !== null) {
              finished.set(event.runId, event.payload.state);
            }
            if (event.type === 'session.idle' && event.runId !== null) idle.add(event.runId);
            if (event.type === 'tool.started' && event.runId !== null) started.add(event.runId);
          }
        },
      },
    );
    await subscription.ready;

    let kills = 0;
    let continuations = 0;
    const settled = (runId: string) =>
      until(`session.idle of ${runId}`, () => (idle.has(runId) ? finished.get(runId) : undefined), {
        timeout: 60_000,
      });
    for (let index = 0; index < RUNS; index++) {
      const tag = `run-${index}`;
      host.model.push(
        toolCallTurn([
          {
            id: `call_${tag}`,
            name: 'run_command',
            arguments: JSON.stringify({ command: `sh slow-mark.sh ${tag}` }),
          },
        ]),
        textTurn('Done.'),
      );
      const submitted = connection.submit('run.submit', { input: { text: `Append ${tag}` } });
      const kill = random() < KILL_CHANCE;
      // Half the kills aim at the command: within a few ms of its tool.started, when
      // the line may or may not have been appended yet.
      const aimed = kill && random() < 0.5;
      if (aimed) {
        const { runId: target } = await submitted;
        await until(
          `tool.started or the end of ${target}`,
          () => (started.has(target) || idle.has(target) ? true : undefined),
          { timeout: 60_000 },
        );
      }
      if (kill) {
        const withinMs = aimed ? AIMED_KILL_WITHIN_MS : KILL_WITHIN_MS;
        await new Promise((resolve) => setTimeout(resolve, random() * withinMs));
        await host.host.kill();
        kills++;
        await host.host.restart();
        connection.retryNow();
      }
      let { runId } = await submitted;
      // An interrupted run is continued; the model answers what the dead run left unasked
      // (its command, then "Done."), or just "Done." when nothing is left.
      while ((await settled(runId)) === 'interrupted') {
        if (host.model.pending === 0) host.model.push(textTurn('Done.'));
        ({ runId } = await connection.submit('run.continue', { runId }));
        continuations++;
      }
    }
    const unknown = host.query(
      (db) =>
        (
          db.prepare("SELECT count(*) AS n FROM tool_calls WHERE state = 'unknown'").get() as {
            n: number;
          }
        ).n,
    );
    console.log(
      `crash loop: ${RUNS} runs, ${kills} kills (${unknown} while a command ran), ${continuations} continuations`,
    );
    // 0.93^200: a schedule without a kill is a one-in-two-million seed, not a pass.
    expect(kills).toBeGreaterThan(0);

    const stored = host.events();
    const head = stored.at(-1)!.seq;
    await until('the client to catch up', () =>
      (received.at(-1)?.seq ?? 0) >= head ? true : undefined,
    );
    const runs = host.query(
      (db) =>
        db.prepare('SELECT id, state, continues_run_id FROM runs').all() as {
          id: string;
          state: string;
          continues_run_id: string | null;
        }[],
    );
    expect(runs.filter((run) => run.continues_run_id === null)).toHaveLength(RUNS);
    expect(runs.filter((run) => !TERMINAL.has(run.state))).toEqual([]);
    const calls = host.query(
      (db) => db.prepare('SELECT state FROM tool_calls').all() as { state: string }[],
    );
    expect(calls.filter((call) => !TERMINAL.has(call.state) && call.state !== 'unknown')).toEqual(
      [],
    );

    // No command outlives the loop: each group is gone, and none is left to kill.
    const groups = host.query(
      (db) =>
        db
          .prepare('SELECT process_group AS pgid FROM tool_calls WHERE process_group IS NOT NULL')
          .all() as { pgid: number }[],
    );
    await until('every command’s process group to be gone', () =>
      groups.every(({ pgid }) => !groupAlive(pgid)) ? true : undefined,
    );
    await until('no orphaned group left to kill', () =>
      host.query((db) => db.prepare('SELECT 1 FROM orphan_groups').all()).length === 0
        ? true
        : undefined,
    );

    const lines = host.markerLines();
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(line).toMatch(/^run-\d+$/);
    // Every run whose command succeeded left its line; a kill can only remove doubt, not add lines.
    expect(lines.length).toBeGreaterThanOrEqual(
      calls.filter((call) => call.state === 'succeeded').length,
    );

    for (let i = 1; i < stored.length; i++) {
      expect(stored[i]!.seq).toBeGreaterThan(stored[i - 1]!.seq);
    }
    for (let i = 1; i < received.length; i++) {
      expect(received[i]!.seq).toBeGreaterThan(received[i - 1]!.seq);
    }
    const bySeq = new Map(stored.map((event) => [event.seq, event]));
    for (const event of received) expect({ v: 1, ...bySeq.get(event.seq) }).toEqual(event);
    // One subscription from seq 0, resumed after every kill: it saw the store's whole history.
    const upToHead = received.filter((event) => event.seq <= head);
    expect(upToHead.map((event) => event.seq)).toEqual(stored.map((event) => event.seq));
  }, 180_000);
});
