/**
 * The host's cold start and idle memory: `node bin/tether.js start` (the built host, from
 * its bundle) as a child process on a temp data directory, timed from spawn until it prints
 * its listening line; then, with no run and no remote, its RSS after it has sat idle 3 s
 * and 10 s (about 8 s after the start, V8's memory reducer gives back the young generation
 * the start grew), and 3 s after it has served the app's page and /v1/health (what the
 * first request loads stays). Side by side in the same run: the same start from the
 * unbundled modules (dist/host/cli/main.js, what bin/tether.js ran before the bundle), and
 * `node -e ""`, Node's own start, the floor. The first start creates the data directory,
 * identity and database; the rounds after it reopen them, as every later start does.
 * Medians of the rounds.
 *
 *   npm run bench:start
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = 9;
const IDLE_MS = 3_000;
const SETTLED_MS = 10_000;

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const modules = new URL('../host/cli/main.js', import.meta.url).href;

interface Start {
  ms: number;
  /** RSS in MB after {@link IDLE_MS} idle; NaN when not measured (so are the next two). */
  idleMb: number;
  /** After {@link SETTLED_MS} idle. */
  settledMb: number;
  /** {@link IDLE_MS} after serving the app's page and /v1/health. */
  servedMb: number;
}

/** The resident set of `pid` in MB (Linux /proc, else ps). */
function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    if (kb !== undefined) return Number(kb) / 1024;
  } catch {
    // not Linux: ask ps
  }
  return NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spawns `args`, waits for its listening line, optionally idles and reads RSS, then stops it. */
async function timeStart(
  args: string[],
  env: NodeJS.ProcessEnv,
  measureRss: boolean,
): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', () => undefined);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http\S+)/.exec(output)?.[1];
      if (listening !== undefined) resolve(listening);
    });
    child.once('exit', (code) =>
      reject(new Error(`exited (${code}) before listening:\n${output}`)),
    );
  });
  const ms = performance.now() - started;
  const figures = { ms, idleMb: NaN, settledMb: NaN, servedMb: NaN };
  if (measureRss) {
    await sleep(IDLE_MS);
    figures.idleMb = rssMb(child.pid!);
    await sleep(SETTLED_MS - IDLE_MS);
    figures.settledMb = rssMb(child.pid!);
    for (const path of ['/', '/v1/health']) {
      const response = await fetch(url + path);
      if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
      await response.arrayBuffer();
    }
    await sleep(IDLE_MS);
    figures.servedMb = rssMb(child.pid!);
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return figures;
}

async function timeNode(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-start-')));
try {
  const kinds = [
    { label: 'bundle (bin/tether.js)', args: [bin] },
    {
      label: 'modules (main.js)',
      args: [
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(modules)});` +
          'process.exitCode = await main(process.argv.slice(1));',
      ],
    },
  ];
  const figures = kinds.map(() => ({ first: NaN, starts: [] as Start[] }));
  const nodeMs: number[] = [];
  for (const [index, { args }] of kinds.entries()) {
    const data = join(root, `data-${index}`);
    const workspace = join(root, `workspace-${index}`);
    mkdirSync(workspace);
    const env = { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file' };
    const startArgs = [...args, 'start', '--data', data, '--port', '0', '--workspace', workspace];
    figures[index]!.first = (await timeStart(startArgs, env, false)).ms;
  }
  for (let round = 0; round < ROUNDS; round++) {
    nodeMs.push(await timeNode());
    for (const [index, { args }] of kinds.entries()) {
      const env = { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file' };
      const data = join(root, `data-${index}`);
      const workspace = join(root, `workspace-${index}`);
      const startArgs = [...args, 'start', '--data', data, '--port', '0', '--workspace', workspace];
      figures[index]!.starts.push(await timeStart(startArgs, env, round % 3 === 0));
    }
  }
  console.log(
    `host cold start, spawn → "listening on" line, median of ${ROUNDS} starts on an existing ` +
      `data directory; RSS with no run and no remote after ${IDLE_MS / 1000} s and ` +
      `${SETTLED_MS / 1000} s idle, then ${IDLE_MS / 1000} s after serving / and /v1/health ` +
      `(medians of ${Math.ceil(ROUNDS / 3)})`,
  );
  console.log(
    ['', 'first start', 'start', 'minus node', 'RSS 3 s', 'RSS 10 s', 'served']
      .map((c, i) => (i === 0 ? c.padEnd(26) : c.padStart(12)))
      .join(' '),
  );
  const node = median(nodeMs);
  for (const [index, { label }] of kinds.entries()) {
    const { first, starts } = figures[index]!;
    const ms = median(starts.map((start) => start.ms));
    const mb = (key: 'idleMb' | 'settledMb' | 'servedMb') =>
      `${format(median(starts.map((start) => start[key]).filter((v) => !Number.isNaN(v))), 1)} MB`;
    console.log(
      [
        label.padEnd(26),
        `${format(first)} ms`.padStart(12),
        `${format(ms)} ms`.padStart(12),
        `${format(ms - node)} ms`.padStart(12),
        mb('idleMb').padStart(12),
        mb('settledMb').padStart(12),
        mb('servedMb').padStart(12),
      ].join(' '),
    );
  }
  console.log(`${'node -e ""'.padEnd(26)} ${''.padStart(12)} ${`${format(node)} ms`.padStart(12)}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
