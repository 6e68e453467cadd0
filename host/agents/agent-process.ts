/**
 * One ACP agent's process: started inside the OS sandbox (the same plan `run_command`
 * gets: the run's workspace and the agent's own folders writable, secrets hidden; the
 * network only to the hosts its config names, through the host's proxy, or all of it
 * when it names none, since an agent talks to its provider), as the
 * leader of its own process group, with its stdio piped to the host. Its stderr's last
 * lines are kept for the run's error when it dies: each cut as it comes, so an agent that
 * writes without end on one line costs the host no more than the kept characters, and
 * masked before it is cut, so a secret across the cut is never shown in part.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { AgentInfo } from '../../protocol/index.js';
import {
  configuredRequest,
  spawnWrapped,
  type PreparedSandbox,
  type Sandbox,
} from '../sandbox/index.js';
import { childLines } from '../log/index.js';
import { isGroupGone, stopProcessGroup } from '../tools/index.js';
import type { AgentSpec } from './types.js';

/** stderr lines kept for a failed run's error, and the characters of each. */
const STDERR_TAIL_LINES = 20;
const STDERR_LINE_MAX = 500;
/** Read past the cut before masking: a secret up to this long that the cut crosses is masked whole. */
const MASK_SLACK = 8_192;

export interface AgentStartOptions {
  spec: AgentSpec;
  /** Real path of the run's workspace (or worktree): writable, and the default folder. */
  workspace: string;
  /** A worktree run's repository folder (real path), read-only: git works in the worktree. */
  gitReadOnly?: readonly string[];
  sandbox: Sandbox;
  /** The new group's id, right after the spawn (recorded so a crashed host's is killed). */
  onGroup(pgid: number): void;
  /** Each line of stderr as it comes (for the host log). */
  onStderrLine?(line: string): void;
  /** Masks the host's secrets in a line of stderr, before it is cut. */
  mask?(text: string): string;
}

export type AgentSandboxScope = AgentInfo['sandbox'];

/** What of an agent with `spec` the sandbox would hold in `workspace`. */
export function agentSandboxScope(
  sandbox: Sandbox,
  spec: AgentSpec,
  workspace: string,
): AgentSandboxScope {
  return sandbox.scope(workspace, configuredRequest(spec));
}

export class AgentProcess {
  private readonly tail: string[] = [];
  private stopping: Promise<boolean> | null = null;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly pgid: number,
    private readonly prepared: PreparedSandbox | null,
    private readonly options: AgentStartOptions,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    // Lines cut as they come (never a whole line held first: it may not end), with room
    // past the kept length so a secret across the cut is still masked whole.
    childLines(child.stderr, STDERR_LINE_MAX + MASK_SLACK + 1, (line) => this.keep(line));
    // A write to an agent that died is reported by its exit, not as an unhandled error.
    child.stdin.on('error', () => undefined);
  }

  /**
   * Starts the agent. Throws (with what went wrong) when the sandbox cannot be prepared
   * or the program cannot start.
   */
  static async start(options: AgentStartOptions): Promise<AgentProcess> {
    const { spec, workspace, sandbox } = options;
    const cwd = spec.cwd ?? workspace;
    const argv = [spec.command, ...spec.args];
    let started: AgentProcess | null = null;
    let prepared: PreparedSandbox | null = null;
    if (sandbox.status.available) {
      const request = { ...configuredRequest(spec), gitReadOnly: options.gitReadOnly ?? [] };
      // A connection the proxy refused reads as a line of the agent's stderr: it may be
      // why the agent fails.
      prepared = await sandbox.prepare(workspace, request, (target) =>
        started?.keep(
          `tether: refused a connection to ${target}, not in agents.${spec.name}.network`,
        ),
      );
    }
    const launch =
      prepared === null ? { file: spec.command, args: [...spec.args] } : prepared.wrap(argv, cwd);
    const env =
      prepared === null ? { ...spec.env } : { ...spec.env, TMPDIR: prepared.plan.tempDir };
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawnWrapped(launch, { cwd, env, stdin: 'pipe' }) as ChildProcessWithoutNullStreams;
    } catch (error) {
      prepared?.finish();
      throw error;
    }
    const pgid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid ?? 0));
      child.once('error', reject);
    }).catch((error: unknown) => {
      prepared?.finish();
      throw new Error(`cannot start ${spec.command}: ${String(error)}`);
    });
    options.onGroup(pgid);
    started = new AgentProcess(child, pgid, prepared, options);
    if (prepared?.capped === true) {
      // Said, not refused: an agent works in the user's workspace, often larger than that.
      started.keep(
        `tether: the look for secrets stopped at its limit in the folders of agents.${spec.name}: ` +
          'secrets past it are not hidden from the agent',
      );
    }
    return started;
  }

  /** Keeps a line of stderr: masked, then cut, in the tail and the host log. */
  private keep(whole: string): void {
    const masked = this.options.mask === undefined ? whole : this.options.mask(whole);
    const kept = masked.length > STDERR_LINE_MAX ? `${masked.slice(0, STDERR_LINE_MAX)}…` : masked;
    this.tail.push(kept);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
    this.options.onStderrLine?.(kept);
  }

  /** The last lines the agent wrote to stderr (each cut to 500 characters). */
  stderrTail(): string[] {
    return [...this.tail];
  }

  /** True once no process of the agent's group is left. */
  get gone(): boolean {
    return isGroupGone(this.pgid);
  }

  /**
   * Stops the agent's whole group (its stdin closed, then TERM, `graceMs`, KILL) and
   * removes its sandbox's temporary folder. True when the group is gone.
   */
  stop(graceMs: number): Promise<boolean> {
    this.stopping ??= (async () => {
      this.child.stdin.end();
      const sandboxed = this.prepared !== null;
      const { gone } = await stopProcessGroup(this.pgid, graceMs, undefined, sandboxed);
      this.prepared?.finish();
      return gone;
    })();
    return this.stopping;
  }
}
