/**
 * What the command sandbox costs per command (docs/performance.md, "Sandbox cost per
 * command"), on a Linux machine with bubblewrap:
 * - `command`: `true` and `git status` in a small git workspace through run_command with
 *   the sandbox (unattended, so by execve), through run_command without one (approved, so
 *   `/bin/sh -c`, the path every command took before the sandbox), and by a bare
 *   `child_process.spawn` of the same words; interleaved round by round, medians.
 * - `plan`: `Sandbox.prepare` (the policy's secret set, the walk for secrets and `.git`
 *   internals, the call's temporary folder, the git config check) and `finish` (the second
 *   walk, the folder removed) in that workspace and in generated ones of 100, 2,000 and
 *   20,000 files.
 * - `bwrap`: bubblewrap's own start, with the fewest arguments and with the tool's plan,
 *   next to a spawn of `/bin/true`.
 * - `cpu`: the host's CPU per command (every thread's, from /proc/self/task/<tid>/schedstat),
 *   a batch of rounds sandboxed, unsandboxed and by a bare spawn, divided by the rounds.
 *
 *   npm run bench:sandbox   (or node dist/bench/sandbox.js [command] [plan] [bwrap] [cpu])
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PolicyConfig, sandboxSecrets } from '../host/policy/index.js';
import { detectSandbox, Sandbox } from '../host/sandbox/index.js';
import type { ToolContext } from '../host/tools/index.js';
import { createRunCommandTool } from '../host/tools/testing.js';

const ROUNDS = 40;
const PLAN_ROUNDS = 30;
const PLAN_ROUNDS_LARGEST = 10;
const WARM_UP = 5;
const COMMANDS = ['true', 'git status'] as const;
const PLAN_SIZES = [100, 2_000, 20_000] as const;
const FILES_PER_FOLDER = 20;
const MiB = 1024 * 1024;
const MINIMAL_BWRAP = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-net',
  '--unshare-pid',
  '--die-with-parent',
  '--',
  '/bin/true',
];

const policy = PolicyConfig.parse({});
const secretsFor = (root: string) => sandboxSecrets(policy, root, homedir(), []);
// The machine's sandbox, as the host makes it.
const machine = new Sandbox(
  detectSandbox({ platform: process.platform, searchPath: process.env['PATH'] ?? '' }),
  secretsFor,
  homedir(),
);
const sandboxedTool = createRunCommandTool({ sandbox: machine });
const unsandboxedTool = createRunCommandTool({
  sandbox: new Sandbox(
    { available: false, reason: 'the bench runs it without one', fix: 'none' },
    secretsFor,
    homedir(),
  ),
});

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-sandbox-')));
const outputPath = join(root, 'output.log');

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const ratio = (a: number, b: number) => `${fixed(a / b)}x`;

/** Rows as columns padded to their widest cell, the first left-aligned, the rest right. */
function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) {
    const cells = row.map((cell, i) =>
      i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
    );
    console.log(`  ${cells.join('  ')}`);
  }
}

/** The host's CPU so far in ms: every thread's time on a CPU (Linux schedstat, ns). */
function hostCpuMs(): number {
  let ns = 0;
  for (const task of readdirSync('/proc/self/task')) {
    try {
      ns += Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended since the listing.
    }
  }
  return ns / 1e6;
}

function git(cwd: string, args: readonly string[]): void {
  const done = spawnSync(
    'git',
    [
      '-c',
      'user.name=bench',
      '-c',
      'user.email=bench@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
  );
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
}

/** A git repository of a few committed files, and one changed file for `git status`. */
function smallRepository(): string {
  const workspace = join(root, 'small');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# bench\n');
  writeFileSync(join(workspace, 'package.json'), '{"name": "bench", "type": "module"}\n');
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(workspace, 'src', 'b.ts'), 'export const b = 2;\n');
  git(workspace, ['init', '-q']);
  git(workspace, ['add', '.']);
  git(workspace, ['commit', '-qm', 'init']);
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 3;\n');
  return realpathSync(workspace);
}

/**
 * A git repository of `files` files, 20 a folder three levels down, and four `.env`
 * files among them.
 */
function generatedWorkspace(files: number): string {
  const workspace = join(root, `files-${files}`);
  mkdirSync(workspace);
  git(workspace, ['init', '-q']);
  for (let i = 0; i < files; i++) {
    const folder = Math.floor(i / FILES_PER_FOLDER);
    const at = join(
      workspace,
      `pkg${folder % 10}`,
      `mod${Math.floor(folder / 10) % 10}`,
      `part${Math.floor(folder / 100)}`,
    );
    if (i % FILES_PER_FOLDER === 0) mkdirSync(at, { recursive: true });
    const env = i % Math.ceil(files / 4) === 0;
    writeFileSync(join(at, env ? '.env' : `file${i}.ts`), env ? 'TOKEN=x\n' : `// ${i}\n`);
  }
  return realpathSync(workspace);
}

function context(workspace: string, unattended: boolean): ToolContext {
  return {
    workspace,
    signal: new AbortController().signal,
    output: { path: outputPath, capBytes: 64 * MiB, onChunk: () => {} },
    unattended,
  };
}

/**
 * Milliseconds of one run_command call, and of its process from spawn to exit (the tool's
 * own `durationMs`, whole ms); throws when the command did not exit 0.
 */
async function throughTool(
  command: string,
  workspace: string,
  sandboxed: boolean,
): Promise<{ ms: number; processMs: number }> {
  const tool = sandboxed ? sandboxedTool : unsandboxedTool;
  const started = performance.now();
  const result = await tool.execute({ command }, context(workspace, sandboxed));
  const ms = performance.now() - started;
  const expected = sandboxed ? 'bwrap' : 'unsandboxed';
  const processMs = result.data?.['durationMs'];
  if (
    result.data?.['exitCode'] !== 0 ||
    result.data['sandbox'] !== expected ||
    typeof processMs !== 'number'
  ) {
    throw new Error(`${command} (${expected}): ${result.summary}`);
  }
  return { ms, processMs };
}

/** Milliseconds until `file args` started by a bare spawn has exited and its pipes closed. */
function bareSpawn(file: string, args: readonly string[], cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.resume();
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${file} ${args.join(' ')}: exit ${code}`)),
    );
  });
}

async function commandCost(workspace: string): Promise<void> {
  console.log(
    `\nA command end to end, median of ${ROUNDS} interleaved rounds after ${WARM_UP} ` +
      `(a git workspace of 4 files; wall ms)`,
  );
  const rows = [
    [
      'command',
      'sandboxed',
      '(process)',
      'unsandboxed',
      '(process)',
      'bare spawn',
      'sandboxed÷unsandboxed',
      'sandboxed÷bare',
    ],
  ];
  for (const command of COMMANDS) {
    const [file, ...args] = command.split(' ') as [string, ...string[]];
    const sandboxed: { ms: number; processMs: number }[] = [];
    const unsandboxed: { ms: number; processMs: number }[] = [];
    const bare: number[] = [];
    for (let round = -WARM_UP; round < ROUNDS; round++) {
      const figures = [
        await throughTool(command, workspace, true),
        await throughTool(command, workspace, false),
        await bareSpawn(file, args, workspace),
      ] as const;
      if (round < 0) continue;
      sandboxed.push(figures[0]);
      unsandboxed.push(figures[1]);
      bare.push(figures[2]);
    }
    const s = median(sandboxed.map((run) => run.ms));
    const u = median(unsandboxed.map((run) => run.ms));
    const b = median(bare);
    rows.push([
      command,
      fixed(s),
      fixed(median(sandboxed.map((run) => run.processMs)), 0),
      fixed(u),
      fixed(median(unsandboxed.map((run) => run.processMs)), 0),
      fixed(b),
      ratio(s, u),
      ratio(s, b),
    ]);
  }
  printTable(rows);
  console.log('  ((process): from spawn to exit, as the tool times it, whole ms)');
}

async function planCost(small: string): Promise<void> {
  console.log(
    `\nThe plan's parts, medians after a few warm-up rounds (the command's workspace, then ` +
      `generated git workspaces, ${FILES_PER_FOLDER} files a folder, 4 of them .env; ms)`,
  );
  const rows = [
    ['files', 'rounds', 'secret set', 'prepare', 'finish', 'hidden', 'read-only', 'bwrap args'],
  ];
  for (const files of [4, ...PLAN_SIZES]) {
    const workspace = files === 4 ? small : generatedWorkspace(files);
    // The largest walks take a second each: fewer rounds keep the run short.
    const rounds = files > 10_000 ? PLAN_ROUNDS_LARGEST : PLAN_ROUNDS;
    const warmUp = files > 10_000 ? 2 : WARM_UP;
    const secrets: number[] = [];
    const prepare: number[] = [];
    const finish: number[] = [];
    let shape = { hidden: 0, readOnly: 0, args: 0 };
    for (let round = -warmUp; round < rounds; round++) {
      let started = performance.now();
      await secretsFor(workspace);
      const secretsMs = performance.now() - started;
      started = performance.now();
      const prepared = await machine.prepare(workspace, undefined);
      const prepareMs = performance.now() - started;
      started = performance.now();
      const { changed } = prepared.finish();
      const finishMs = performance.now() - started;
      if (prepared.capped || changed.length > 0) {
        throw new Error(`${files} files: capped ${prepared.capped}, changed ${changed.join()}`);
      }
      shape = {
        hidden: prepared.plan.hidden.length,
        readOnly: prepared.plan.readOnly.length,
        args: prepared.wrap(['/bin/true'], workspace).args.length,
      };
      if (round < 0) continue;
      secrets.push(secretsMs);
      prepare.push(prepareMs);
      finish.push(finishMs);
    }
    if (workspace !== small) rmSync(workspace, { recursive: true, force: true });
    rows.push([
      files.toLocaleString('en-US'),
      String(rounds),
      fixed(median(secrets)),
      fixed(median(prepare)),
      fixed(median(finish)),
      String(shape.hidden),
      String(shape.readOnly),
      String(shape.args),
    ]);
  }
  printTable(rows);
  console.log("  (prepare includes the secret set; hidden counts the home folder's stores too)");
}

async function bwrapCost(workspace: string, program: string): Promise<void> {
  const prepared = await machine.prepare(workspace, undefined);
  const planned = prepared.wrap(['/bin/true'], workspace);
  console.log(
    `\nbubblewrap's start, median of ${ROUNDS} interleaved rounds after ${WARM_UP} (wall ms)`,
  );
  const starts = [
    ['spawn /bin/true', '/bin/true', []],
    [`bwrap, ${MINIMAL_BWRAP.length} args (--ro-bind / / … -- /bin/true)`, program, MINIMAL_BWRAP],
    [`bwrap with the tool's plan, ${planned.args.length} args`, program, planned.args],
  ] as const;
  const times: number[][] = starts.map(() => []);
  try {
    for (let round = -WARM_UP; round < ROUNDS; round++) {
      for (const [i, [, file, args]] of starts.entries()) {
        const ms = await bareSpawn(file, args, workspace);
        if (round >= 0) times[i]!.push(ms);
      }
    }
  } finally {
    prepared.finish();
  }
  const base = median(times[0]!);
  printTable([
    ['start', 'ms', '÷spawn'],
    ...starts.map(([label], i) => [
      label,
      fixed(median(times[i]!)),
      ratio(median(times[i]!), base),
    ]),
  ]);
}

async function cpuCost(workspace: string): Promise<void> {
  console.log(
    `\nHost CPU per command (all of the host's threads, schedstat), a batch of ${ROUNDS} ` +
      `after ${WARM_UP} (ms)`,
  );
  const rows = [['command', 'sandboxed', 'unsandboxed', 'bare spawn', 'sandboxed÷unsandboxed']];
  for (const command of COMMANDS) {
    const [file, ...args] = command.split(' ') as [string, ...string[]];
    const runs = [
      () => throughTool(command, workspace, true),
      () => throughTool(command, workspace, false),
      () => bareSpawn(file, args, workspace),
    ];
    const perCall: number[] = [];
    for (const run of runs) {
      for (let round = 0; round < WARM_UP; round++) await run();
      const before = hostCpuMs();
      for (let round = 0; round < ROUNDS; round++) await run();
      perCall.push((hostCpuMs() - before) / ROUNDS);
    }
    const [s, u, b] = perCall as [number, number, number];
    rows.push([command, fixed(s), fixed(u), fixed(b), ratio(s, u)]);
  }
  printTable(rows);
}

const sections = new Map<string, (small: string, program: string) => Promise<void>>([
  ['command', commandCost],
  ['plan', planCost],
  ['bwrap', bwrapCost],
  ['cpu', cpuCost],
]);
const chosen = process.argv.slice(2);
const status = machine.status;
try {
  if (!status.available || status.kind !== 'bwrap') {
    const why = status.available ? `this machine's sandbox is ${status.kind}` : status.reason;
    console.log(`bench:sandbox skipped: bwrap is not available (${why})`);
  } else {
    console.log(`bubblewrap: ${status.program}; Node ${process.version}`);
    const small = smallRepository();
    for (const [name, section] of sections) {
      if (chosen.length === 0 || chosen.includes(name)) await section(small, status.program);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
