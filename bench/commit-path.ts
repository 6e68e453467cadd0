/**
 * What the host does around each commit (issue 26), in-process on the real store:
 *
 * - `runs.list` as devices ask it again with nothing committed since (the page kept), the
 *   store's read behind a page after a commit, and the list the scheduler and keep-awake
 *   read, µs per call;
 * - one commit and the work its listeners do after it (everything up to the next
 *   `setImmediate`), µs of wall time and of CPU per commit: a bare store beside the same
 *   store with keep-awake listening (a run is active, the assertion held by a stand-in
 *   `systemd-inhibit` on PATH), and with the push dispatcher listening (no device
 *   subscribed). `model.request` is the commit most turns make; `run.finished` is one the
 *   dispatcher reads.
 *
 * CPU is all of this process's threads, from /proc/self/task/∗/schedstat (ns; Linux
 * only, else `-`). Modes take turns within each round; figures are medians of rounds.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/commit-path.js
 */
import { createECDH, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../host/log/index.js';
import { keepAwake } from '../host/power/testing.js';
import { PushDispatcher } from '../host/push/index.js';
import { Runtime } from '../host/runtime/index.js';
import { Store, newId, type StoredRun } from '../host/store/index.js';
import { b64u, type NewEvent, type RunState } from '../protocol/index.js';

const ROUNDS = 7;
const ROUND_MS = 300;
const WARMUP_MS = 150;
const RUNS = 200;

interface Figures {
  wallUs: number;
  cpuUs: number;
}

interface Mode {
  label: string;
  /** One operation; awaited when it returns a promise. */
  step: () => unknown;
}

/** ns on CPU of every thread of this process; NaN where there is no schedstat. */
function cpuNs(): number {
  if (!existsSync('/proc/self/task')) return NaN;
  let total = 0;
  for (const task of readdirSync('/proc/self/task')) {
    try {
      total += Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return total;
}

/** Per-operation wall and CPU µs over one round of `ms`. */
async function round(step: () => unknown, ms: number): Promise<Figures> {
  let count = 0;
  const cpu = cpuNs();
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    const result = step();
    if (result instanceof Promise) await result;
    count++;
    elapsed = performance.now() - start;
  }
  return { wallUs: (elapsed * 1000) / count, cpuUs: (cpuNs() - cpu) / 1000 / count };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** One median per mode; the modes take turns within each round. */
async function measure(modes: readonly Mode[]): Promise<Figures[]> {
  for (const mode of modes) await round(mode.step, WARMUP_MS);
  const rounds = modes.map((): Figures[] => []);
  for (let index = 0; index < ROUNDS; index++) {
    for (const [at, mode] of modes.entries()) rounds[at]!.push(await round(mode.step, ROUND_MS));
  }
  return rounds.map((figures) => ({
    wallUs: median(figures.map((f) => f.wallUs)),
    cpuUs: median(figures.map((f) => f.cpuUs)),
  }));
}

const format = (n: number, digits = 1) =>
  Number.isNaN(n)
    ? '-'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function print(title: string, modes: readonly Mode[], figures: readonly Figures[]): void {
  console.log(title);
  console.log(`${'mode'.padEnd(44)} ${'wall µs'.padStart(10)} ${'CPU µs'.padStart(10)}`);
  for (const [at, mode] of modes.entries()) {
    const { wallUs, cpuUs } = figures[at]!;
    console.log(
      `${mode.label.padEnd(44)} ${format(wallUs).padStart(10)} ${format(cpuUs).padStart(10)}`,
    );
  }
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-commit-')));
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const log = createLogger({ level: 'error', sink: { write: () => undefined } });

/** A store holding one session with `runs` runs, the newest `running`. */
async function openStore(name: string, runs: number): Promise<{ store: Store; runId: string }> {
  const store = await Store.open({ dataDir: join(root, name) });
  const sessionId = newId('ses');
  let runId = '';
  store.write((tx) => {
    store.runs.insertSession({
      id: sessionId,
      title: 'bench',
      workspace: root,
      createdAt: tx.at,
      activeRunId: null,
    });
    for (let index = 0; index < runs; index++) {
      const state: RunState = index === runs - 1 ? 'running' : 'succeeded';
      runId = newId('run');
      const run: StoredRun = {
        id: runId,
        sessionId,
        state,
        input: { text: `task ${index}` },
        model: 'bench',
        createdAt: tx.at + index,
        startedAt: tx.at + index,
        finishedAt: state === 'running' ? null : tx.at + index,
        continuesRunId: null,
        error: null,
        commandId: `bench-${index}`,
        createdBy: 'bench',
        idleAt: null,
      };
      store.runs.insertRun(run);
    }
    store.runs.setActiveRun(sessionId, runId);
  });
  return { store, runId };
}

function runtimeOf(store: Store): Runtime {
  return new Runtime(store, { model: null, workspaces: [{ name: 'w', path: root }] });
}

/** A stand-in `systemd-inhibit` first on PATH: it runs the command it was given, as the real one does. */
function fakeInhibitor(): void {
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'systemd-inhibit'),
    '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done\nexec "$@"\n',
  );
  chmodSync(join(bin, 'systemd-inhibit'), 0o755);
  process.env['PATH'] = `${bin}:${process.env['PATH'] ?? ''}`;
}

function commitOf(store: Store, runId: string, type: 'model.request' | 'run.finished') {
  const sessionId = store.runs.getRun(runId)!.sessionId;
  const event: NewEvent =
    type === 'model.request'
      ? { type, sessionId, runId, payload: { index: 0, model: 'bench' } }
      : { type, sessionId, runId, payload: { state: 'succeeded' } };
  return async () => {
    store.write((tx) => tx.append(event));
    await tick();
  };
}

fakeInhibitor();
const listed = await openStore('list', RUNS);
const listedRuntime = runtimeOf(listed.store);
const active: RunState[] = ['queued', 'running', 'waiting_for_approval', 'cancelling'];
const bare = await openStore('bare', 1);
const awake = await openStore('keep-awake', 1);
const power = keepAwake({
  runtime: runtimeOf(awake.store),
  policy: 'runs',
  platform: process.platform,
  log,
});
const pushed = await openStore('push', 1);
const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const dispatcher = new PushDispatcher(pushed.store, {
  host: { hostId: b64u(randomBytes(16)), hostName: 'bench', workspaceName: () => 'w' },
  keys: {
    publicKey: b64u(ecdh.getPublicKey()),
    privateKey: b64u(ecdh.getPrivateKey()),
    created: true,
  },
  settings: {
    subject: 'mailto:bench@example.org',
    allowedEndpoints: ['https://push.example.org'],
    body: 'names',
    initialDelayMs: 100,
    maxDelayMs: 1000,
    maxAttempts: 3,
    requestTimeoutMs: 5000,
  },
  log: () => undefined,
});
dispatcher.start();

try {
  console.log(`commit path, median of ${ROUNDS} rounds of ${ROUND_MS} ms, ${process.version}`);
  const listModes: Mode[] = [
    {
      label: `runs.list {limit: 1} (${RUNS} runs), page kept`,
      step: () => listedRuntime.listRuns({ limit: 1 }),
    },
    {
      label: 'runs.list {limit: 1}, read after a commit',
      step: () => listed.store.runs.listRuns({ limit: 2 }),
    },
    {
      label: 'runs.list {limit: 50}, read after a commit',
      step: () => listed.store.runs.listRuns({ limit: 51 }),
    },
    {
      label: 'active runs, as keep-awake lists them',
      step: () => listed.store.runs.listRuns({ states: active, limit: 100 }),
    },
  ];
  print('per call', listModes, await measure(listModes));
  const commitModes: Mode[] = [
    { label: 'model.request, bare store', step: commitOf(bare.store, bare.runId, 'model.request') },
    {
      label: 'model.request, keep-awake listening',
      step: commitOf(awake.store, awake.runId, 'model.request'),
    },
    { label: 'run.finished, bare store', step: commitOf(bare.store, bare.runId, 'run.finished') },
    {
      label: 'run.finished, push dispatcher listening',
      step: commitOf(pushed.store, pushed.runId, 'run.finished'),
    },
  ];
  const commits = await measure(commitModes);
  print('per commit (synchronous=FULL) and its listeners', commitModes, commits);
  const extra = (mode: number, base: number) =>
    `${format(commits[mode]!.cpuUs - commits[base]!.cpuUs)} µs CPU (${format(
      (100 * (commits[mode]!.cpuUs - commits[base]!.cpuUs)) / commits[base]!.cpuUs,
      0,
    )} % of the bare commit)`;
  console.log(`keep-awake adds ${extra(1, 0)}; the dispatcher adds ${extra(3, 2)}`);
} finally {
  power.stop();
  await dispatcher.stop();
  for (const store of [listed.store, bare.store, awake.store, pushed.store]) store.close();
  rmSync(root, { recursive: true, force: true });
}
