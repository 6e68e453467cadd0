/**
 * run_command under load: the host's memory and CPU while a command writes 1 GB as fast as
 * it can (next to the same command writing to /dev/null and to a bare Node pipe reader);
 * the time from cancel until the command's whole process group is gone, with and without a
 * grandchild that ignores SIGTERM; and the cost of running `true` through the tool next to
 * a bare `child_process.spawn`. search_files over a generated 50,000-file tree (time, RSS,
 * event-loop delay) next to `grep -rn` of the same pattern over the same tree.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/tools.js [flood] [cancel] [spawn] [search]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { machineSandbox } from '../host/cli/machine-sandbox.js';
import { PolicyConfig } from '../host/policy/index.js';
import { compileReadProtection } from '../host/policy/testing.js';
import { createRunCommandTool, createSearchFilesTool } from '../host/tools/testing.js';
import type { ToolContext } from '../host/tools/index.js';
import type { ToolOutputSink } from '../host/tools/testing.js';

const FLOOD_BYTES = 1_000_000_000;
const FLOOD = `yes | head -c ${FLOOD_BYTES}`;
const CANCEL_ROUNDS = 5;
const SPAWN_ROUNDS = 40;
const GRACE_MS = 2000;
const MB = 1e6;
const MiB = 1024 * 1024;

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-tools-')));
// The machine's sandbox, as the host makes it (bench/sandbox.ts measures what it costs).
const sandbox = machineSandbox({
  policy: PolicyConfig.parse({}),
  home: homedir(),
  hostPaths: [],
  platform: process.platform,
  searchPath: process.env['PATH'] ?? '',
});
const tool = createRunCommandTool({ sandbox, graceMs: GRACE_MS });

/** A context streaming into one output file; `pgid()` is the last group reported. */
function context(
  signal = new AbortController().signal,
  onChunk: ToolOutputSink['onChunk'] = () => {},
): { ctx: ToolContext; pgid: () => number } {
  let pgid = 0;
  const ctx: ToolContext = {
    workspace,
    signal,
    output: { path: join(workspace, 'output.log'), capBytes: 64 * MiB, onChunk },
    onProcessGroup: (group) => (pgid = group),
  };
  return { ctx, pgid: () => pgid };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** Milliseconds until `command` run by a bare spawn has exited and its pipe is read. */
function bareRun(command: string, read: boolean): Promise<number> {
  const started = performance.now();
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (read) child.stdout.on('data', () => {});
  else child.stdout.resume();
  child.stderr.resume();
  return new Promise((resolve) => child.once('close', () => resolve(performance.now() - started)));
}

async function flood(): Promise<void> {
  console.log(`1 GB of output (\`${FLOOD}\`), output file capped at 64 MiB`);
  const devNullMs = await bareRun(`${FLOOD} > /dev/null`, false);
  console.log(`  the command alone, > /dev/null:    ${fixed(devNullMs / 1000, 2)} s`);
  const bareMs = await bareRun(FLOOD, true);
  console.log(
    `  bare Node pipe reader:             ${fixed(bareMs / 1000, 2)} s, ` +
      `${fixed(FLOOD_BYTES / MB / (bareMs / 1000), 0)} MB/s`,
  );
  for (let round = 1; round <= 2; round++) {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const cpu = process.cpuUsage();
    let characters = 0;
    const { ctx } = context(undefined, (text) => (characters += text.length));
    const started = performance.now();
    const result = await tool.execute({ command: FLOOD }, ctx);
    const ms = performance.now() - started;
    clearInterval(sampler);
    const used = process.cpuUsage(cpu);
    if (result.status !== 'succeeded' || characters !== FLOOD_BYTES) {
      throw new Error(`flood failed: ${result.summary}`);
    }
    console.log(
      `  through run_command (round ${round}):   ${fixed(ms / 1000, 2)} s, ` +
        `${fixed(FLOOD_BYTES / MB / (ms / 1000), 0)} MB/s; host CPU user ` +
        `${fixed(used.user / 1000, 0)} ms + system ${fixed(used.system / 1000, 0)} ms ` +
        `(${fixed(((used.user + used.system) / 1000 / ms) * 100, 0)}% of one core); ` +
        `RSS ${fixed(baseline / MiB, 0)} MiB, peak +${fixed((peak - baseline) / MiB, 1)} MiB`,
    );
  }
}

/** Time from abort to the tool's result, and to `kill(-pgid, 0)` failing with ESRCH. */
async function cancelOnce(command: string): Promise<{ resultMs: number; esrchMs: number }> {
  const controller = new AbortController();
  let seen = '';
  const { ctx, pgid } = context(controller.signal, (text) => {
    seen += text;
    if (seen.includes('ready')) controller.abort();
  });
  let abortedAt = 0;
  let esrch: Promise<number> = Promise.resolve(Number.NaN);
  controller.signal.addEventListener('abort', () => {
    abortedAt = performance.now();
    esrch = waitForEsrch(pgid(), abortedAt);
  });
  const result = await tool.execute({ command }, ctx);
  const resultMs = performance.now() - abortedAt;
  if (result.error?.code !== 'cancelled' || result.data?.groupGone !== true) {
    throw new Error(`cancel failed: ${result.summary}`);
  }
  return { resultMs, esrchMs: await esrch };
}

async function waitForEsrch(pgid: number, since: number): Promise<number> {
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return performance.now() - since;
    }
    if (performance.now() - since > 10_000) return Number.NaN;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function cancel(): Promise<void> {
  console.log(
    `cancel → group gone, median of ${CANCEL_ROUNDS} (grace ${GRACE_MS} ms; "reaped" waits ` +
      `for kill(-pgid, 0) = ESRCH, which includes init reaping the killed orphans)`,
  );
  const cases = [
    ['grandchild that exits on SIGTERM', `sh -c 'echo ready; sleep 300' & wait`],
    ['grandchild ignoring SIGTERM', `sh -c 'trap "" TERM; echo ready; sleep 300' & wait`],
  ] as const;
  for (const [label, command] of cases) {
    const rounds = [];
    for (let round = 0; round < CANCEL_ROUNDS; round++) rounds.push(await cancelOnce(command));
    console.log(
      `  ${label.padEnd(34)} result ${fixed(median(rounds.map((r) => r.resultMs)))} ms, ` +
        `reaped ${fixed(median(rounds.map((r) => r.esrchMs)))} ms`,
    );
  }
}

async function spawnOverhead(): Promise<void> {
  const bare: number[] = [];
  const through: number[] = [];
  for (let round = -5; round < SPAWN_ROUNDS; round++) {
    const bareMs = await bareRun('true', true);
    const started = performance.now();
    const result = await tool.execute({ command: 'true' }, context().ctx);
    const toolMs = performance.now() - started;
    if (result.status !== 'succeeded') throw new Error(`true failed: ${result.summary}`);
    // The first rounds warm up.
    if (round < 0) continue;
    bare.push(bareMs);
    through.push(toolMs);
  }
  const [b, t] = [median(bare), median(through)];
  console.log(`\`true\`, median of ${SPAWN_ROUNDS}`);
  console.log(`  bare child_process.spawn:          ${fixed(b, 2)} ms`);
  console.log(
    `  through run_command:               ${fixed(t, 2)} ms (${fixed(t / b, 2)}x; includes ` +
      `realpath of the cwd, creating and fsyncing the output file)`,
  );
}

const SEARCH_FOLDERS = 50;
const SEARCH_SUBFOLDERS = 10;
const SEARCH_FILES_PER_FOLDER = 100;
const SEARCH_ROUNDS = 5;

/** 50 × 10 folders of 100 files, ~1 KiB of code each; every 100th file holds "needle". */
function writeSearchTree(root: string): number {
  let written = 0;
  for (let top = 0; top < SEARCH_FOLDERS; top++) {
    for (let sub = 0; sub < SEARCH_SUBFOLDERS; sub++) {
      const folder = join(root, `pkg${top}`, `mod${sub}`);
      mkdirSync(folder, { recursive: true });
      for (let file = 0; file < SEARCH_FILES_PER_FOLDER; file++) {
        const lines = [`// file ${written}`];
        for (let line = 0; line < 12; line++) {
          lines.push(`export function handler${line}(value: number): number {`);
          lines.push(`  return value * ${line} + ${file};`);
          lines.push('}');
        }
        if (written % 100 === 0) lines.push(`const needle = ${written};`);
        writeFileSync(join(folder, `file${file}.ts`), `${lines.join('\n')}\n`);
        written += 1;
      }
    }
  }
  return written;
}

/** `grep -rn` of `pattern` over `root` (run under /usr/bin/time): its ms, lines and peak RSS. */
function grepRun(
  pattern: string,
  root: string,
): Promise<{ ms: number; lines: number; kib: number }> {
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', 'grep', '-rnE', pattern, '.'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lines = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', () =>
      resolve({
        ms: performance.now() - started,
        lines,
        kib: Number(stderr.trim().split('\n').at(-1)),
      }),
    ),
  );
}

async function searchFiles(): Promise<void> {
  const root = join(workspace, 'tree');
  const files = writeSearchTree(root);
  // The deadline is raised from 10 s so that a loaded machine still measures whole searches.
  const tool = createSearchFilesTool({
    protectedPaths: (where) => compileReadProtection([], where, homedir()),
    deadlineMs: 60_000,
  });
  console.log(
    `search_files over ${files} files in ${SEARCH_FOLDERS * SEARCH_SUBFOLDERS} folders ` +
      `(~${fixed((files * 1.1) / 1024, 0)} MiB), median of ${SEARCH_ROUNDS} after one warm-up, ` +
      `next to grep -rnE of the same pattern in the same run`,
  );
  const patterns = [
    ['a rare literal', 'needle'],
    ['a regex on every line', 'function \\w+\\('],
  ] as const;
  for (const [label, pattern] of patterns) {
    const grepPattern = pattern.replace('\\w', '[[:alnum:]_]');
    const toolMs: number[] = [];
    const grepMs: number[] = [];
    let peak = 0;
    let rssBefore = 0;
    let matches: unknown;
    let grepLines = 0;
    let grepKib = 0;
    let delayMax = 0;
    const delayP99: number[] = [];
    for (let round = -1; round < SEARCH_ROUNDS; round++) {
      const grep = await grepRun(grepPattern, root);
      rssBefore = process.memoryUsage().rss;
      peak = Math.max(peak, rssBefore);
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const started = performance.now();
      const result = await tool.execute(
        { pattern, path: root, caseSensitive: true },
        { workspace, signal: new AbortController().signal },
      );
      const ms = performance.now() - started;
      delay.disable();
      clearInterval(sampler);
      if (result.status !== 'succeeded' || result.data?.['incomplete'] !== null) {
        throw new Error(`search_files did not finish: ${result.content.split('\n').at(-1)}`);
      }
      if (round < 0) continue;
      toolMs.push(ms);
      grepMs.push(grep.ms);
      matches = result.data?.['matches'];
      grepLines = grep.lines;
      grepKib = grep.kib;
      delayMax = Math.max(delayMax, delay.max / 1e6);
      delayP99.push(delay.percentile(99) / 1e6);
    }
    const [t, g] = [median(toolMs), median(grepMs)];
    console.log(
      `  ${label} (/${pattern}/): ${String(matches)} matching lines (grep printed ${grepLines})`,
    );
    console.log(`    grep -rnE:      ${fixed(g)} ms, peak RSS ${fixed(grepKib / 1024, 1)} MiB`);
    console.log(
      `    search_files:   ${fixed(t)} ms (${fixed(t / g, 2)}x grep); host RSS ` +
        `${fixed(rssBefore / MiB, 0)} MiB before, peak ${fixed(peak / MiB, 0)} MiB (worker ` +
        `thread included); event-loop delay p99 ${fixed(median(delayP99))} ms, max ${fixed(delayMax)} ms`,
    );
  }
}

const sections = new Map([
  ['flood', flood],
  ['cancel', cancel],
  ['spawn', spawnOverhead],
  ['search', searchFiles],
]);
const chosen = process.argv.slice(2);
try {
  for (const [name, section] of sections) {
    if (chosen.length === 0 || chosen.includes(name)) await section();
  }
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
