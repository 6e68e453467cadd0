/**
 * `run_command {command, cwd?, timeoutMs?, sandbox?: {network?, hosts?, write?}}`: runs a
 * command in the workspace inside the OS sandbox (host/sandbox), as the leader of its own
 * process group, stdin closed, with a minimal environment. A command a person approved runs as `/bin/sh -c
 * command`; one that runs unattended (an allow rule let it through) runs its words
 * directly, never through a shell, so an assignment, alias, glob or `$VAR` means nothing.
 * Its output streams into the runtime's output file under a byte cap; a timeout or a
 * cancel stops the whole group (SIGTERM, a grace period, SIGKILL), and the sandbox with it.
 *
 * Background processes a command leaves running when it exits are stopped the same way:
 * otherwise they would outlive the run, out of reach of cancel, holding its output open.
 * Where no sandbox can run, only a command a person approved runs, with full access.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import {
  NetworkHost,
  type PreparedSandbox,
  type Sandbox,
  type SandboxRequest,
} from '../sandbox/index.js';
import { COMMAND_ENV_KEYS, runCommandProcess } from './command-process.js';
import { sandboxRequest } from './command-start.js';
import { expectErrnoCode } from './expect-errno.js';
import { formatBytes } from './format-bytes.js';
import { EXCERPT_EDGE_BYTES } from './output-capture.js';
import { failedResult } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { CommandAccess, ToolContext, ToolDefinition, ToolResult } from './types.js';
import { resolveToolPath, resolveWorkspacePath } from './workspace-path.js';

/** Longest command, in UTF-8 bytes. */
const RUN_COMMAND_MAX_BYTES = 32 * 1024;
/** Timeout when neither the input nor the tool's options give one. */
const RUN_COMMAND_DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

const MIN_TIMEOUT_MS = 1000;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

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
      network: z.boolean().optional().describe('true: the command needs the whole network.'),
      hosts: z
        .array(NetworkHost)
        .min(1)
        .max(16)
        .optional()
        .describe(
          'Instead of network: the only hosts the command needs (registry.npmjs.org, ' +
            'github.com, *.pythonhosted.org, localhost:8080), through an HTTP proxy its ' +
            'environment names; prefer it to network when you know them.',
        ),
      write: z
        .array(z.string().min(1).max(4096))
        .max(16)
        .optional()
        .describe('Existing folders or files outside the workspace the command must change.'),
    })
    .refine((asked) => !(asked.network === true && asked.hosts !== undefined), {
      error: 'give sandbox.network or sandbox.hosts, not both',
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
  return defineTool<RunCommandInput>({
    name: 'run_command',
    description:
      `Run a shell command with /bin/sh -c in the workspace, or in cwd inside it, inside a ` +
      `sandbox: it may change files only in the workspace (never .git hooks or config), ` +
      `has no network, and cannot read secrets (.env files, keys, credentials). Ask for ` +
      `more with sandbox: {hosts: [names]} (the network only to those hosts), ` +
      `{network: true} or {write: [paths]} only when needed: the user must approve it. ` +
      `stdin is closed, so nothing interactive works; the environment holds only ` +
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
      sandbox: askedOf(input.sandbox),
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
      const prepared = await prepareSandbox(sandbox, ctx, request.request);
      if (prepared !== null && 'status' in prepared) return prepared;
      try {
        return await runCommandProcess(input.command, ctx, cwd, prepared, {
          sandbox,
          extraEnv: options.extraEnv,
          graceMs,
          timeoutMs: input.timeoutMs ?? defaultTimeoutMs,
          maxOutputBytes,
        });
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
      const scope = sandbox.scope(workspace, request.ok ? request.request : askedOf(input.sandbox));
      return { kind: 'command', command: input.command, cwd: real, sandbox: scope };
    },
  });
}

/** What more of the sandbox the input asks for, as its access declares it. */
function askedOf(asked: RunCommandInput['sandbox']): CommandAccess['sandbox'] {
  return {
    network: asked?.network === true,
    write: asked?.write ?? [],
    ...(asked?.hosts === undefined ? {} : { hosts: asked.hosts }),
  };
}

/**
 * The sandbox prepared for the call (null where none can run), or why it cannot run: a
 * sandbox that failed, or a workspace too large to check for secrets before an unattended
 * command.
 */
async function prepareSandbox(
  sandbox: Sandbox,
  ctx: ToolContext,
  request: SandboxRequest,
): Promise<PreparedSandbox | ToolResult | null> {
  if (!sandbox.status.available) return null;
  let prepared: PreparedSandbox;
  try {
    prepared = await sandbox.prepare(ctx.workspace, request);
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
  return prepared;
}

async function directoryProblem(directory: string): Promise<string | null> {
  try {
    return (await stat(directory)).isDirectory() ? null : 'not a directory';
  } catch (error) {
    const code = expectErrnoCode(error);
    return code === 'ENOENT' ? 'no such directory' : code;
  }
}
