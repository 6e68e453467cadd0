/**
 * Host CPU per run (issue 26): two real hosts (`node bin/tether.js start`, each its own
 * process and data directory), one with `power.keepAwake: "runs"` and a stand-in
 * `systemd-inhibit` on PATH (a script that execs the command it was given, as the real
 * one does, so the host forks what it would fork), one with `"never"`. A device paired
 * with each submits one-turn runs to a zero-latency model in this process and waits for
 * each `run.finished`:
 *
 * - back to back: 10 runs, each submitted when the last one finished;
 * - one run alone, after the host had been idle.
 *
 * Each measure is the host's CPU (all its threads, /proc/<pid>/task/∗/schedstat, ns) from
 * before the first submit until 6 s after the last run finished, so whatever the host
 * does when it goes idle again (releasing the assertion) is counted; per run. Hosts take
 * turns within each round; medians of rounds. Both hosts run on one core, the devices and
 * the model on another (bench/cpu-pinning.ts). Linux only.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run-cpu.js
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from '../protocol/index.js';
import { connectRemote, type Remote } from './channel-host.js';
import { pinClientAndServers } from './cpu-pinning.js';
import { hostCpuNs, startHostProcess, type HostProcess } from './host-process.js';
import { startZeroLatencyModel } from './zero-latency-model.js';

const ROUNDS = 7;
const BURST = 10;
/** Runs each fresh host does before it is measured. */
const WARM_UP = 30;
/** Longer than any quiet period the host waits before it releases the assertion. */
const SETTLE_MS = 6_000;

interface BenchHost {
  mode: 'runs' | 'never';
  process: HostProcess;
  remote: Remote;
  /** Resolves when the run's `run.finished` reached the device. */
  finished(runId: string): Promise<void>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-run-cpu-')));
const bin = join(root, 'bin');
mkdirSync(bin);
writeFileSync(
  join(bin, 'systemd-inhibit'),
  '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done\nexec "$@"\n',
);
chmodSync(join(bin, 'systemd-inhibit'), 0o755);
const model = await startZeroLatencyModel(0);

async function startBenchHost(home: string, keepAwake: 'runs' | 'never'): Promise<BenchHost> {
  const host = await startHostProcess({
    home: join(root, home),
    config: { power: { keepAwake } },
    env: {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      TETHER_MODEL_BASE_URL: model.baseUrl,
      TETHER_MODEL: 'bench',
      TETHER_MODEL_API_KEY: 'sk-bench',
    },
  });
  const remote = await connectRemote(host.storage, host.hostId);
  const ended = new Set<string>();
  const waiters = new Map<string, () => void>();
  const subscription = remote.connection.subscribeEvents(
    {},
    {
      onEvents: (events: readonly Event[]) => {
        for (const event of events) {
          if (event.type !== 'run.finished' || event.runId === null) continue;
          ended.add(event.runId);
          waiters.get(event.runId)?.();
        }
      },
    },
  );
  await subscription.ready;
  return {
    mode: keepAwake,
    process: host,
    remote,
    finished: (runId) =>
      ended.has(runId) ? Promise.resolve() : new Promise((resolve) => waiters.set(runId, resolve)),
  };
}

/** Host CPU µs per run of `runs` back-to-back runs, counted until the host settled. */
async function cpuPerRun(host: BenchHost, runs: number): Promise<number> {
  const { pid } = host.process;
  const before = hostCpuNs(pid);
  for (let index = 0; index < runs; index++) {
    const { runId } = await host.remote.connection.submit('run.submit', {
      input: { text: 'Hi' },
    });
    await host.finished(runId);
  }
  await sleep(SETTLE_MS);
  return (hostCpuNs(pid) - before) / 1000 / runs;
}

const MODES = ['runs', 'never'] as const;
const burst = MODES.map((): number[] => []);
const alone = MODES.map((): number[] => []);
let pinning: ReturnType<typeof pinClientAndServers>;
let hosts: BenchHost[] = [];
async function stopHosts(): Promise<void> {
  for (const host of hosts) {
    await host.remote.connection.close();
    await host.process.stop();
  }
  hosts = [];
}
try {
  // Two fresh host processes each round: what one process happens to cost more than
  // another (its memory's layout, its core's state) is spread over both modes, not left
  // on one of them for the whole bench.
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [...MODES] : [...MODES].reverse();
    hosts = [];
    for (const mode of order) hosts.push(await startBenchHost(`${mode}-${round}`, mode));
    // The devices and the model on one core, both hosts on the other: each host meets the
    // same wakeups (bench/cpu-pinning.ts).
    pinning = pinClientAndServers(hosts.map((host) => host.process.pid));
    // Warm-up runs first, so neither host's first runs (compiling, opening) count: a
    // fresh host's early runs cost several times a warm one's.
    for (const host of hosts) await cpuPerRun(host, WARM_UP);
    for (const host of hosts) {
      const at = MODES.indexOf(host.mode);
      burst[at]!.push(await cpuPerRun(host, BURST));
      alone[at]!.push(await cpuPerRun(host, 1));
    }
    await stopHosts();
  }
  console.log(
    `host CPU per one-turn run, median of ${ROUNDS} rounds (two fresh hosts each), counted ` +
      `until ${SETTLE_MS / 1000} s after the last run` +
      (pinning === undefined ? '' : `; both hosts on core ${pinning.servers}`),
  );
  console.log(`${'mode'.padEnd(44)} ${'wall µs'.padStart(10)} ${'CPU µs/run'.padStart(10)}`);
  for (const [at, mode] of MODES.entries()) {
    for (const [what, values] of [
      [`${BURST} back to back`, burst[at]!],
      ['one run alone', alone[at]!],
    ] as const) {
      const label = `keepAwake ${mode}, ${what}`;
      console.log(
        `${label.padEnd(44)} ${'-'.padStart(10)} ${median(values).toFixed(0).padStart(10)}`,
      );
    }
  }
  const share = (values: number[][]) =>
    ((100 * (median(values[0]!) - median(values[1]!))) / median(values[0]!)).toFixed(0);
  console.log(
    `keep-awake's share of a run's host CPU: ${share(burst)} % back to back, ${share(alone)} % alone`,
  );
} finally {
  await stopHosts();
  await model.close();
  rmSync(root, { recursive: true, force: true });
}
