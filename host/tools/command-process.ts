/**
 * One `run_command` call's process, from its output file to its outcome: spawned as the
 * leader of its own process group (in the sandbox when there is one), supervised through
 * a timeout or a cancel, what it left running stopped, its output settled.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { spawnWrapped, type PreparedSandbox, type Sandbox } from '../sandbox/index.js';
import { describeCommand } from './command-report.js';
import type { CommandOutcome } from './command-report.js';
import { commandArgv } from './command-start.js';
import { expectErrnoCode } from './expect-errno.js';
import { OutputCapture } from './output-capture.js';
import { isGroupGone, stopProcessGroup, waitUntilGone } from './process-group.js';
import type { GroupStop } from './process-group.js';
import { failedResult } from './tool-result.js';
import type { ToolContext, ToolResult } from './types.js';
import { unattendedEnvironment } from './unattended-env.js';
import path from 'node:path';

/** Variables passed on from the host's environment; nothing else of it reaches a command. */
export const COMMAND_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL', 'TMPDIR'];

// Once the group is gone its pipes close; only a process that left the group (setsid)
// can hold them open, and its output is waited for this long, then dropped.
const OUTPUT_SETTLE_MS = 2000;
// How long a sandbox's namespace may take to end after its command exits.
const SANDBOX_END_MS = 1000;

/** How a command runs: the `run_command` tool's settings and the call's timeout. */
export interface CommandRunSettings {
  sandbox: Sandbox;
  extraEnv: Record<string, string> | undefined;
  graceMs: number;
  timeoutMs: number;
  maxOutputBytes: number;
}

type CommandChild = ChildProcessByStdio<null, Readable, Readable>;
/** What is spawned: the command's own words, or the sandbox that runs them. */
type Launch = ReturnType<PreparedSandbox['wrap']>;

/** Runs `command` in `cwd`, in `prepared` when there is a sandbox, to its outcome. */
export async function runCommandProcess(
  command: string,
  ctx: ToolContext,
  cwd: { path: string; relative: string },
  prepared: PreparedSandbox | null,
  settings: CommandRunSettings,
): Promise<ToolResult> {
  const capture = await openCapture(ctx, settings.maxOutputBytes);
  if (!(capture instanceof OutputCapture)) return capture;
  const argv = commandArgv(command, ctx.unattended === true);
  const sandboxed = prepared !== null;
  const started = performance.now();
  const launch: Launch =
    prepared === null
      ? { file: argv[0] ?? '', args: argv.slice(1) }
      : prepared.wrap(argv, cwd.path);
  const spawned = await spawnInGroup(
    launch,
    cwd.path,
    commandEnvironment(ctx, settings.extraEnv, prepared),
  );
  if ('error' in spawned) {
    await capture.finish();
    return failedResult(
      'spawn_failed',
      `cannot start ${launch.file}: ${expectErrnoCode(spawned.error)}`,
    );
  }
  const { child, pgid } = spawned;
  try {
    ctx.onProcessGroup?.(pgid);
  } catch (error) {
    await stopProcessGroup(pgid, 0, undefined, sandboxed);
    await capture.finish();
    throw error;
  }
  const closed = Promise.all([capture.attach(child.stdout), capture.attach(child.stderr)]);
  const { timeoutMs, graceMs, sandbox } = settings;
  const run = await supervise(child, pgid, { started, timeoutMs, graceMs, ctx, sandboxed });
  await settleOutput(closed, [child.stdout, child.stderr]);
  const found = prepared?.finish() ?? { changed: [], removed: [] };
  const shown = (absolute: string) => path.relative(ctx.workspace, absolute);
  const outcome: CommandOutcome = {
    ...run,
    command,
    cwd: cwd.relative,
    timeoutMs,
    output: await capture.finish(),
    outputPath: ctx.output?.path ?? null,
    redirectsRemoved: found.removed.map(shown),
    secretsUnchecked: prepared?.capped === true,
    sandbox:
      prepared === null
        ? 'unsandboxed'
        : sandbox.status.available
          ? sandbox.status.kind
          : 'unsandboxed',
    protectedChanges: found.changed.map(shown),
  };
  return describeCommand(outcome);
}

/**
 * The capture of the command's output, into the call's output file when it has one; a
 * failed result when the file cannot be made or the call was cancelled meanwhile.
 */
async function openCapture(
  ctx: ToolContext,
  maxOutputBytes: number,
): Promise<OutputCapture | ToolResult> {
  const sink = ctx.output;
  let file: FileHandle | null = null;
  if (sink !== undefined) {
    try {
      file = await openOutputFile(sink.path);
    } catch (error) {
      return failedResult('io_error', `cannot create the output file: ${expectErrnoCode(error)}`);
    }
  }
  // Opening the file took a turn of the event loop: a cancel, or the store closing
  // its gate after a failed commit, may have stopped the run meanwhile. Nothing spawns then.
  if (ctx.signal.aborted) {
    await file?.close();
    return failedResult('cancelled', 'cancelled before it started');
  }
  return new OutputCapture({
    file,
    capBytes: Math.min(sink?.capBytes ?? 0, maxOutputBytes),
    ...(sink && { onChunk: (text: string, offset: number) => sink.onChunk(text, offset) }),
  });
}

/** The command's environment: what is passed on, the tool's own, narrowed when unattended. */
function commandEnvironment(
  ctx: ToolContext,
  extraEnv: Record<string, string> | undefined,
  prepared: PreparedSandbox | null,
): Record<string, string> {
  const attendedEnv = { ...passedOnEnvironment(), ...extraEnv };
  const baseEnv = ctx.unattended ? unattendedEnvironment(attendedEnv, ctx.workspace) : attendedEnv;
  return prepared === null ? baseEnv : { ...baseEnv, TMPDIR: prepared.plan.tempDir };
}

/** Spawns `launch` as the leader of its own process group, or says why it could not. */
async function spawnInGroup(
  launch: Launch,
  cwd: string,
  env: Record<string, string>,
): Promise<{ child: CommandChild; pgid: number } | { error: unknown }> {
  let child: CommandChild;
  try {
    child = spawnWrapped(launch, { cwd, env, stdin: 'ignore' }) as CommandChild;
  } catch (error) {
    return { error };
  }
  const pgid = child.pid;
  if (pgid === undefined) {
    return { error: await new Promise<Error>((resolve) => child.once('error', resolve)) };
  }
  return { child, pgid };
}

type Supervision = Pick<CommandOutcome, 'exit' | 'stoppedBy' | 'backgroundStopped' | 'groupGone'>;

interface Limits {
  /** A bubblewrap sandbox leads the group (stopProcessGroup spares it SIGTERM). */
  sandboxed: boolean;
  started: number;
  timeoutMs: number;
  graceMs: number;
  ctx: ToolContext;
}

/**
 * Waits for the command to exit, stopping its group on timeout or cancel, then stops
 * whatever of the group is still running.
 */
async function supervise(
  child: CommandChild,
  pgid: number,
  { started, timeoutMs, graceMs, ctx, sandboxed }: Limits,
): Promise<Supervision> {
  const stop: { by: 'timeout' | 'cancelled' | null; stopping: Promise<GroupStop> | null } = {
    by: null,
    stopping: null,
  };
  const stopFor = (by: 'timeout' | 'cancelled', cutGraceOn?: AbortSignal) => {
    if (stop.stopping !== null) return;
    stop.by = by;
    stop.stopping = stopProcessGroup(pgid, graceMs, cutGraceOn, sandboxed);
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // A cancel during a timeout's grace period goes straight to SIGKILL.
  const timer = setTimeout(() => stopFor('timeout', ctx.signal), timeoutMs);
  const onAbort = () => stopFor('cancelled');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // It may have aborted while the output file was being opened.
  if (ctx.signal.aborted) onAbort();
  const status = await exited;
  const durationMs = Math.round(performance.now() - started);
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  const exit = { ...status, durationMs };
  if (stop.stopping !== null) {
    const { gone } = await stop.stopping;
    return { exit, stoppedBy: stop.by, backgroundStopped: false, groupGone: gone };
  }
  // A sandbox's PID namespace ends with its command, the processes it left with it.
  if (isGroupGone(pgid) || (sandboxed && (await waitUntilGone(pgid, SANDBOX_END_MS)))) {
    return { exit, stoppedBy: null, backgroundStopped: false, groupGone: true };
  }
  const { gone } = await stopProcessGroup(pgid, graceMs, ctx.signal, sandboxed);
  return { exit, stoppedBy: null, backgroundStopped: true, groupGone: gone };
}

/** Waits for both pipes to close; past {@link OUTPUT_SETTLE_MS} they are closed here. */
async function settleOutput(closed: Promise<unknown>, streams: Readable[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, OUTPUT_SETTLE_MS, 'late');
  });
  const settled = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (settled !== 'late') return;
  for (const stream of streams) stream.destroy();
  await closed;
}

function passedOnEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of COMMAND_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

async function openOutputFile(file: string): Promise<FileHandle> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const handle = await open(file, flags, 0o600);
  try {
    // The mode of `open` applies only to a file it creates.
    await handle.chmod(0o600);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
