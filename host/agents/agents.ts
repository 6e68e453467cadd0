/**
 * Every configured ACP agent of the host: what `host.info.agents` says of each (its
 * state, its last error, what the sandbox holds of it), and each run's agent process
 * started inside the sandbox, its process group recorded while it lives so the next start
 * after a crash kills it (in the table of the MCP servers' groups, `store.mcpGroups`, as
 * `agent:<name>`).
 */
import type { AgentInfo } from '../../protocol/index.js';
import type { Logger } from '../log/index.js';
import type { ServerGroupRecord } from '../mcp/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { AgentProcess, agentSandboxScope, type AgentSandboxScope } from './agent-process.js';
import type { AgentSpec } from './types.js';

export interface AgentsOptions {
  sandbox: Sandbox;
  groups: ServerGroupRecord;
  log: Logger;
  /** Masks the host's secrets in an agent's error, which host.info sends as it is. */
  mask(text: string): string;
  /** How long a stopping agent has after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
}

/** A started agent: its process, and its end to report. */
export interface StartedAgent {
  process: AgentProcess;
  /** Stops its group (if still running) and forgets it; `error` says why it failed. */
  end(error: string | null): Promise<boolean>;
}

export class Agents {
  private readonly specs = new Map<string, AgentSpec>();
  private readonly running = new Map<string, number>();
  private readonly errors = new Map<string, string>();

  constructor(
    specs: readonly AgentSpec[],
    private readonly options: AgentsOptions,
  ) {
    for (const spec of specs) this.specs.set(spec.name, spec);
  }

  has(name: string): boolean {
    return this.specs.has(name);
  }

  /** The agents as `host.info.agents` lists them, in config order; null with none. */
  list(workspace: string): AgentInfo[] | null {
    if (this.specs.size === 0) return null;
    return [...this.specs.values()].map((spec) => {
      const error = this.errors.get(spec.name);
      return {
        name: spec.name,
        state: (this.running.get(spec.name) ?? 0) > 0 ? 'running' : error ? 'failed' : 'idle',
        ...(error === undefined ? {} : { lastError: error }),
        sandbox: agentSandboxScope(this.options.sandbox, spec, workspace),
      };
    });
  }

  /** What the sandbox holds of `name` working in `workspace`. */
  scope(name: string, workspace: string): AgentSandboxScope {
    const spec = this.spec(name);
    return agentSandboxScope(this.options.sandbox, spec, workspace);
  }

  /**
   * Starts `name` for a run in `workspace` (a real path); a worktree run's repository
   * folder in `gitReadOnly`. Throws when it cannot start.
   */
  async start(
    name: string,
    workspace: string,
    options: { gitReadOnly?: readonly string[] } = {},
  ): Promise<StartedAgent> {
    const spec = this.spec(name);
    const log = this.options.log.child({ agent: name });
    const startedAt = Date.now();
    let process: AgentProcess;
    try {
      process = await AgentProcess.start({
        spec,
        workspace,
        gitReadOnly: options.gitReadOnly ?? [],
        sandbox: this.options.sandbox,
        onGroup: (pgid) => this.options.groups.add({ pgid, server: `agent:${name}`, startedAt }),
        onStderrLine: (line) => log.debug('agent stderr', { line }),
        mask: (text) => this.options.mask(text),
      });
    } catch (error) {
      this.errors.set(name, this.options.mask(String(error)));
      throw error;
    }
    this.running.set(name, (this.running.get(name) ?? 0) + 1);
    let ended: Promise<boolean> | null = null;
    return {
      process,
      end: (error) => {
        ended ??= (async () => {
          const gone = await process.stop(this.options.stopGraceMs ?? 2_000);
          if (gone) this.options.groups.remove(process.pgid);
          else log.error('the agent process group did not end', { pgid: process.pgid });
          this.running.set(name, (this.running.get(name) ?? 1) - 1);
          if (error === null) this.errors.delete(name);
          else this.errors.set(name, this.options.mask(error));
          return gone;
        })();
        return ended;
      },
    };
  }

  private spec(name: string): AgentSpec {
    const spec = this.specs.get(name);
    if (spec === undefined) throw new Error(`no agent named ${name} is configured`);
    return spec;
  }
}
