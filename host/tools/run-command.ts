/**
 * `run_command {command, cwd?, timeoutMs?, sandbox?}`: runs a command in the workspace
 * inside the OS sandbox (host/sandbox), as the leader of its own process group, stdin
 * closed, with a minimal environment. A command a person approved runs as `/bin/sh -c
 * command`; one that runs unattended (an allow rule let it through) runs its words
 * directly, never through a shell, so an assignment, alias, glob or `$VAR` means nothing.
 * Its output streams into the runtime's output file under a byte cap; a timeout or a
 * cancel stops the whole group (SIGTERM, a grace period, SIGKILL), and the sandbox with it.
 *
 * Background processes a command leaves running when it exits are stopped the same way:
 * otherwise they would outlive the run, out of reach of cancel, holding its output open.
 * Where no sandbox can run, only a command a person approved runs, with full access.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { PreparedSandbox, Sandbox } from '../sandbox/index.js';
import { describeCommand } from './command-report.js';
import type { CommandOutcome } from './command-report.js';
import { commandArgv, sandboxRequest } from './command-start.js';
import { expectErrnoCode } from './expect-errno.js';
import { formatBytes } from './format-bytes.js';
import { EXCERPT_EDGE_BYTES, OutputCapture } from './output-capture.js';
import { isGroupGone, stopProcessGroup, waitUntilGone } from './process-group.js';
import type { GroupStop } from './process-group.js';
import { failedResult } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { ToolContext, ToolDefinition, ToolResult } from './types.js';
import { unattendedEnvironment } from './unattended-env.js';
import { resolveToolPath, resolveWorkspacePath } from './workspace-path.js';
import path from 'node:path';

/** Longest command, in UTF-8 bytes. */
const RUN_COMMAND_MAX_BYTES = 32 * 1024;
/** Timeout when neither the input nor the tool's options give one. */
const RUN_COMMAND_DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
/** Variables passed on from the host's environment; nothing else of it reaches a command. */
export const COMMAND_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL', 'TMPDIR'];

const MIN_TIMEOUT_MS = 1000;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
// Once the group is gone its pipes close; only a process that left the group (setsid)
// can hold them open, and its output is waited for this long, then dropped.
const OUTPUT_SETTLE_MS = 2000;
// How long a sandbox's namespace may take to end after its command exits.
const SANDBOX_END_MS = 1000;

/** Settings of a `run_command` tool. */
export interface RunCommandOptions {
  /** The OS sandbox every command runs in (its status says when there is none). */
  sandbox: Sandbox;
  /** Variables added to every command's environment, over the ones passed on. */
  extraEnv?: Record<string, string>;
  /** Time between SIGTERM and SIGKILL when a group is stopped (default 2000 ms). */
  graceMs?: number;
  /** Timeout when the input gives none (default 10 min). */
  defaultTimeoutMs?: number;
  /** Most bytes kept in the output file, whatever the sink allows (default 64 MiB). */
  maxOutputBytes?: number;
}

const runCommandInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(RUN_COMMAND_MAX_BYTES)
    .refine((command) => !command.includes('\0'), 'the command contains a NUL byte')
    .refine(
      (command) => Buffer.byteLength(command) <= RUN_COMMAND_MAX_BYTES,
      `the command is longer than ${formatBytes(RUN_COMMAND_MAX_BYTES)}`,
    )
    .describe('The command line, run by /bin/sh -c.'),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe('Working directory: relative to the workspace, or absolute inside it (default .).'),
  timeoutMs: z
    .int()
    .min(MIN_TIMEOUT_MS)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe('Milliseconds before the command and its child processes are stopped.'),
  sandbox: z
    .strictObject({
      network: z
        .boolean()
        .optional()
        .describe('true: the command needs the network (npm install, git fetch).'),
      write: z
        .array(z.string().min(1).max(4096))
        .max(16)
        .optional()
        .describe('Existing folders or files outside the workspace the command must change.'),
    })
    .optional()
    .describe('Only when the command needs more than the sandbox gives: the user must approve it.'),
});

/** Validated input of `run_command`. */
export type RunCommandInput = z.infer<typeof runCommandInput>;

/** A `run_command` tool with its own environment, grace period, timeout and output cap. */
export function createRunCommandTool(options: RunCommandOptions): ToolDefinition<RunCommandInput> {
  const { sandbox } = options;
  const graceMs = options.graceMs ?? 2000;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? RUN_COMMAND_DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  /** Runs the command, in `prepared` when there is a sandbox, to its outcome. */
  async function runPrepared(
    input: RunCommandInput,
    ctx: ToolContext,
    cwd: { path: string; relative: string },
    prepared: PreparedSandbox | null,
  ): Promise<ToolResult> {
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
    const capture = new OutputCapture({
      file,
      capBytes: Math.min(sink?.capBytes ?? 0, maxOutputBytes),
      ...(sink && { onChunk: (text: string, offset: number) => sink.onChunk(text, offset) }),
    });
    const attendedEnv = { ...passedOnEnvironment(), ...options.extraEnv };
    const baseEnv = ctx.unattended
      ? unattendedEnvironment(attendedEnv, ctx.workspace)
      : attendedEnv;
    const env = prepared === null ? baseEnv : { ...baseEnv, TMPDIR: prepared.plan.tempDir };
    const argv = commandArgv(input.command, ctx.unattended === true);
    const sandboxed = prepared !== null;
    const started = performance.now();
    const launch =
      prepared === null
        ? { file: argv[0] ?? '', args: argv.slice(1) }
        : prepared.wrap(argv, cwd.path);
    let child: ChildProcessByStdio<null, Readable, Readable>;
    let fd3: number | null = null;
    try {
      if (launch.fd3 !== undefined) fd3 = openSync(launch.fd3, 'r');
      child = spawn(launch.file, launch.args, {
        cwd: cwd.path,
        env,
        // Its own group (and session): one signal to -pgid reaches every descendant.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', ...(fd3 === null ? [] : [fd3])],
      }) as ChildProcessByStdio<null, Readable, Readable>;
    } catch (error) {
      if (fd3 !== null) closeSync(fd3);
      await capture.finish();
      return failedResult('spawn_failed', `cannot start ${launch.file}: ${expectErrnoCode(error)}`);
    }
    // The child has its own copy now.
    if (fd3 !== null) closeSync(fd3);
    const pgid = child.pid;
    if (pgid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      await capture.finish();
      return failedResult('spawn_failed', `cannot start ${launch.file}: ${expectErrnoCode(error)}`);
    }
    try {
      ctx.onProcessGroup?.(pgid);
    } catch (error) {
      await stopProcessGroup(pgid, 0, undefined, sandboxed);
      await capture.finish();
      throw error;
    }
    const closed = Promise.all([capture.attach(child.stdout), capture.attach(child.stderr)]);
    const timeoutMs = input.timeoutMs ?? defaultTimeoutMs;
    const run = await supervise(child, pgid, { started, timeoutMs, graceMs, ctx, sandboxed });
    await settleOutput(closed, [child.stdout, child.stderr]);
    const found = prepared?.finish() ?? { changed: [], removed: [] };
    const shown = (absolute: string) => path.relative(ctx.workspace, absolute);
    const protectedChanges = found.changed.map(shown);
    const redirectsRemoved = found.removed.map(shown);
    const outcome: CommandOutcome = {
      ...run,
      command: input.command,
      cwd: cwd.relative,
      timeoutMs,
      output: await capture.finish(),
      outputPath: sink?.path ?? null,
      redirectsRemoved,
      secretsUnchecked: prepared?.capped === true,
      sandbox:
        prepared === null
          ? 'unsandboxed'
          : sandbox.status.available
            ? sandbox.status.kind
            : 'unsandboxed',
      protectedChanges,
    };
    return describeCommand(outcome);
  }

  return defineTool<RunCommandInput>({
    name: 'run_command',
    description:
      `Run a shell command with /bin/sh -c in the workspace, or in cwd inside it, inside a ` +
      `sandbox: it may change files only in the workspace (never .git hooks or config), ` +
      `has no network, and cannot read secrets (.env files, keys, credentials). Ask for ` +
      `more with sandbox: {network: true} or {write: [paths]} only when needed: the user ` +
      `must approve it. stdin is ` +
      `closed, so nothing interactive works; the environment holds only ` +
      `${COMMAND_ENV_KEYS.join(', ')}. Returns the exit status, the time taken and the ` +
      `output, stdout and stderr interleaved (its first and last ` +
      `${formatBytes(EXCERPT_EDGE_BYTES)} when longer). After timeoutMs (default ` +
      `${Math.round(defaultTimeoutMs / 1000)} s, at most 24 h) the command is stopped with all ` +
      `its child processes; background processes still running when it exits are stopped too.`,
    input: runCommandInput,
    access: (input) => ({
      kind: 'command',
      command: input.command,
      cwd: input.cwd ?? '.',
      sandbox: { network: input.sandbox?.network === true, write: input.sandbox?.write ?? [] },
    }),
    async execute(input, ctx) {
      const cwd = await resolveToolPath(ctx, input.cwd ?? '.');
      if (!cwd.ok) return failedResult(cwd.code, cwd.reason);
      const unusable = await directoryProblem(cwd.path);
      if (unusable !== null) {
        return failedResult('spawn_failed', `cannot run in ${cwd.relative}: ${unusable}`);
      }
      const request = await sandboxRequest(input.sandbox, ctx);
      if (!request.ok) return failedResult('invalid_input', request.reason);
      if (!sandbox.status.available && ctx.unattended === true) {
        return failedResult(
          'permission_denied',
          `no sandbox can run here (${sandbox.status.reason}), so no command runs without ` +
            `the user's approval`,
        );
      }
      if (ctx.signal.aborted) return failedResult('cancelled', 'cancelled before it started');
      let prepared: PreparedSandbox | null = null;
      if (sandbox.status.available) {
        try {
          prepared = await sandbox.prepare(ctx.workspace, request.request);
        } catch (error) {
          return failedResult('spawn_failed', `cannot prepare the sandbox: ${String(error)}`);
        }
        if (prepared.capped && ctx.unattended === true) {
          prepared.finish();
          return failedResult(
            'permission_denied',
            'the workspace has too many files to check for secrets before a command runs ' +
              "unattended; it needs the user's approval",
          );
        }
      }
      try {
        return await runPrepared(input, ctx, cwd, prepared);
      } finally {
        prepared?.finish();
      }
    },
    async preview(input, ctx) {
      const { workspace } = ctx;
      const cwd = await resolveWorkspacePath(workspace, input.cwd ?? '.');
      const real = 'path' in cwd ? cwd.path : (input.cwd ?? workspace);
      const request = await sandboxRequest(input.sandbox, ctx);
      // A request naming a path that does not exist fails when it runs; the card shows
      // the paths as the input names them.
      const scope = sandbox.scope(
        workspace,
        request.ok
          ? request.request
          : { network: input.sandbox?.network === true, write: input.sandbox?.write ?? [] },
      );
      return { kind: 'command', command: input.command, cwd: real, sandbox: scope };
    },
  });
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
  child: ChildProcessByStdio<null, Readable, Readable>,
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

async function directoryProblem(directory: string): Promise<string | null> {
  try {
    return (await stat(directory)).isDirectory() ? null : 'not a directory';
  } catch (error) {
    const code = expectErrnoCode(error);
    return code === 'ENOENT' ? 'no such directory' : code;
  }
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
