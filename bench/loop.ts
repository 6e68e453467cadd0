/**
 * The run loop end to end: a 200-turn run (199 `list_directory` calls, then an answer)
 * against a zero-latency model over real HTTP, with a real store and workspace, so every
 * millisecond is the host's own. Prints the medians over several runs, whether a turn
 * slows down as the context grows, the commits a turn costs, and the host's memory.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/loop.js
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModelAdapter } from '../host/model/index.js';
import { Runtime } from '../host/runtime/index.js';
import { Store, type WriteContext } from '../host/store/index.js';
import { startZeroLatencyModel } from './zero-latency-model.js';

const TURNS = 200;
const RUNS = 5;
const SAMPLE_MS = 50;
/** Turns averaged at each end of a run to see whether a turn slows down as it goes. */
const EDGE = 20;

interface RunFigures {
  ms: number;
  /** Per turn, from its `model.request` commit to the next one (the last: to `run.finished`). */
  turnMs: number[];
  /** Per turn, from `model.request` to `message.completed`: HTTP, stream and recording. */
  modelMs: number[];
  events: number;
  commits: number;
  outputFiles: number;
  requestBytes: readonly number[];
}

/** A workspace with a few files for `list_directory` to show. */
function makeWorkspace(path: string): void {
  mkdirSync(join(path, 'src'), { recursive: true });
  mkdirSync(join(path, 'docs'));
  writeFileSync(join(path, 'README.md'), '# Demo\nA small project.\n');
  writeFileSync(join(path, 'package.json'), '{ "name": "demo", "type": "module" }\n');
  writeFileSync(join(path, 'src', 'main.ts'), 'console.log("hi");\n');
  writeFileSync(join(path, 'src', 'util.ts'), 'export const one = 1;\n');
  writeFileSync(join(path, 'docs', 'notes.md'), 'Nothing yet.\n');
}

/** Counts outer `write` calls, each one committed transaction. */
function countCommits(store: Store): () => number {
  const write = store.write.bind(store);
  let commits = 0;
  let depth = 0;
  store.write = <T>(fn: (tx: WriteContext) => T): T => {
    if (depth === 0) commits++;
    depth++;
    try {
      return write(fn);
    } finally {
      depth--;
    }
  };
  return () => commits;
}

async function benchRun(index: number): Promise<RunFigures> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-loop-')));
  const workspace = join(root, 'workspace');
  makeWorkspace(workspace);
  const model = await startZeroLatencyModel(TURNS - 1);
  const store = await Store.open({ dataDir: join(root, 'data') });
  try {
    const runtime = new Runtime(store, {
      model: {
        adapter: createModelAdapter({ baseUrl: model.baseUrl, provider: 'generic', apiKey: 'x' }),
        name: 'bench',
        available: ['bench'],
      },
      workspaces: [{ name: 'w', path: workspace }],
      limits: { maxModelTurns: 1000 },
    });
    runtime.start();
    const commits = countCommits(store);
    const requestAt: number[] = [];
    const completedAt: number[] = [];
    let finishedAt = 0;
    let events = 0;
    store.subscribe((committed) => {
      const now = performance.now();
      events += committed.length;
      for (const event of committed) {
        if (event.type === 'model.request') requestAt.push(now);
        if (event.type === 'message.completed') completedAt.push(now);
        if (event.type === 'run.finished') finishedAt = now;
      }
    });

    const start = performance.now();
    const { runId } = runtime.submit(
      { commandId: `bench-loop-${process.pid}-${index}-${Date.now()}`, input: { text: 'go' } },
      'bench',
    );
    await runtime.whenIdle();
    const ms = performance.now() - start;

    const { run, messages, toolCalls } = runtime.getRun(runId);
    const listed = toolCalls.filter((call) => call.state === 'succeeded').length;
    if (run.state !== 'succeeded' || messages.length !== TURNS || listed !== TURNS - 1) {
      throw new Error(
        `run ${index} ended ${run.state} with ${messages.length} messages and ${listed} listings: ${JSON.stringify(run.error)}`,
      );
    }
    return {
      ms,
      turnMs: requestAt.map((at, turn) => (requestAt[turn + 1] ?? finishedAt) - at),
      modelMs: completedAt.map((at, turn) => at - requestAt[turn]!),
      events,
      commits: commits(),
      outputFiles: readdirSync(store.outputsDir).length,
      requestBytes: model.requestBytes,
    };
  } finally {
    store.close();
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number) => `${format(bytes / 2 ** 20, 1)} MB`;

const before = process.memoryUsage();
let peakRss = before.rss;
let peakHeap = before.heapUsed;
const sampler = setInterval(() => {
  const { rss, heapUsed } = process.memoryUsage();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
}, SAMPLE_MS);

const runs: RunFigures[] = [];
try {
  for (let index = 0; index < RUNS; index++) runs.push(await benchRun(index));
} finally {
  clearInterval(sampler);
}
const after = process.memoryUsage();

/** Median over the runs of `figure`. */
const across = (figure: (run: RunFigures) => number) => median(runs.map(figure));
const firstTurns = (values: number[]) => mean(values.slice(0, EDGE));
const lastTurns = (values: number[]) => mean(values.slice(-EDGE));
const toolMs = (run: RunFigures) => run.turnMs.map((ms, turn) => ms - run.modelMs[turn]!);

console.log(`run loop: ${TURNS}-turn runs against a zero-latency model, median of ${RUNS} runs`);
console.log(
  `runs (ms): ${runs.map((run) => format(run.ms)).join(', ')}; ` +
    `${format(across((run) => (TURNS * 1000) / run.ms))} turns/s, ` +
    `${format(
      across((run) => run.ms / TURNS),
      2,
    )} ms/turn`,
);
console.log(
  `per turn: ${format(
    across((run) => run.events / TURNS),
    2,
  )} events, ` +
    `${format(
      across((run) => run.commits / TURNS),
      2,
    )} commits, ` +
    `${format(
      across((run) => run.outputFiles / TURNS),
      2,
    )} fsynced output files`,
);
console.log(
  `ms per turn         turns 1-${EDGE}   turns ${TURNS - EDGE + 1}-${TURNS}   last/first`,
);
const rows: Array<[string, (run: RunFigures) => number[]]> = [
  ['whole turn', (run) => run.turnMs],
  ['model + record', (run) => run.modelMs],
  ['tool + context', toolMs],
];
for (const [label, values] of rows) {
  const first = across((run) => firstTurns(values(run)));
  const last = across((run) => lastTurns(values(run)));
  console.log(
    [
      label.padEnd(18),
      format(first, 2).padStart(11),
      format(last, 2).padStart(15),
      `${format(last / first, 2)}x`.padStart(12),
    ].join(' '),
  );
}
const bytes = runs[0]!.requestBytes;
console.log(
  `request body: turn 1 ${format(bytes[0]! / 1024, 1)} KB, turn ${TURNS} ` +
    `${format(bytes[TURNS - 1]! / 1024, 1)} KB, ${mb(bytes.reduce((a, b) => a + b, 0))} sent per run`,
);
console.log(
  `host RSS: before ${mb(before.rss)}, after ${mb(after.rss)}, peak ${mb(peakRss)} ` +
    `(sampled every ${SAMPLE_MS} ms)`,
);
console.log(
  `heapUsed: before ${mb(before.heapUsed)}, after ${mb(after.heapUsed)}, peak ${mb(peakHeap)}`,
);
