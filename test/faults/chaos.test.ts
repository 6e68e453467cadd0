/**
 * Chaos (issue 7): three client-core remotes send 1,000 commands while their sockets drop
 * at seeded random moments and the host restarts twice (SIGTERM once, SIGKILL once, same
 * port and data). Afterwards every command was applied exactly once and each client's
 * event stream equals the store's, in order, with no gap and nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChaosWorkload } from '../../bench/chaos-workload.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import {
  startScriptedModelServer,
  textTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 1_000_000);
const COMMANDS = 1_000;

let host: HostProcess;
let model: ScriptedModelServer;

beforeAll(async () => {
  model = await startScriptedModelServer();
  // More answers than runs: a run cut by a restart may or may not have asked.
  for (let i = 0; i < COMMANDS * 2; i++) model.push(textTurn('done'));
  host = await startHostProcess({ model: model.baseUrl });
});

afterAll(async () => {
  await host.dispose();
  await model.close();
});

describe('chaos', () => {
  it('1,000 commands, random socket drops, a SIGTERM and a SIGKILL restart: each applied once, streams equal the store', async () => {
    console.log(`chaos seed ${SEED} (rerun with CHAOS_SEED=${SEED})`);
    const workload = await ChaosWorkload.start(host, {
      clients: 3,
      sessionsPerClient: 3,
      seed: SEED,
    });
    try {
      workload.startDropping(100, 600);
      const sending = workload.sendCommands(COMMANDS - workload.sent);
      // A share of the commands answered and some sockets dropped meanwhile. The drops are
      // counted, not timed: a busy test process fires the drop timer late (seen: 11 fires
      // in 20 s), and with the timer alone a run could see almost none.
      // No limit of its own: the test's (120 s) applies.
      const progress = (share: number, drops: number) =>
        until(
          `${share * 100}% of the commands answered and ${drops} socket drops`,
          () => ({ answered: workload.answered, drops: workload.drops }),
          (now) => now.answered >= COMMANDS * share && now.drops >= drops,
          { timeout: 120_000, interval: 50 },
        );
      await progress(0.3, 2);
      await host.restart();
      await progress(0.65, 4);
      await host.kill();
      await host.restart();
      await sending;
      workload.stopDropping();
      expect(await workload.settle(60_000)).toBe(true);
      console.log(`chaos: ${workload.drops} socket drops`);
      expect(workload.drops).toBeGreaterThanOrEqual(4);
      expect(workload.sent).toBe(COMMANDS);
      expect(workload.check(true)).toEqual([]);
    } finally {
      await workload.close();
    }
  }, 120_000);
});
