/**
 * Which core each process of a bench runs on (Linux, `taskset`): the bench's own client on
 * one, the servers it compares on another, so that each server's every wakeup crosses
 * cores as a request from the network does, the same for both. Left to the scheduler, a
 * small server woken by the client often runs on the client's core and the host on the
 * other, and the host's figures then carry a cross-core wakeup the baseline's do not: on
 * the 2-core machine, warm host.info read 3.4× the baseline that way, 1.2× with both
 * servers on the same core (docs/performance.md).
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

/** The cores a bench uses: its client's, and the servers'. */
export interface Pinning {
  client: number;
  servers: number;
}

/**
 * Pins `pid` (all its threads) to `core`; false when it could not (no taskset). A thread
 * that ends while taskset walks them fails the call: it is tried again.
 */
function pin(pid: number, core: number): boolean {
  for (let attempt = 0; attempt < 5; attempt++) {
    const pinned = spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], {
      stdio: 'ignore',
    });
    if (pinned.status === 0) return true;
    if (pinned.error !== undefined) return false;
  }
  return false;
}

/**
 * Pins this process to core 0 and each of `serverPids` to core 1; resolves with the cores,
 * or with undefined (and says so) where that cannot be done.
 */
export function pinClientAndServers(serverPids: number[]): Pinning | undefined {
  const pinning: Pinning = { client: 0, servers: 1 };
  // The machine's cores, not this process's (availableParallelism counts those left to
  // it, one once it is pinned).
  if (cpus().length < 2) {
    console.log('cpu pinning: one core only, processes left to the scheduler');
    return undefined;
  }
  const done = [
    pin(process.pid, pinning.client),
    ...serverPids.map((pid) => pin(pid, pinning.servers)),
  ];
  if (done.includes(false)) {
    console.log('cpu pinning: taskset failed or is missing, processes left to the scheduler');
    return undefined;
  }
  return pinning;
}
