/**
 * Contracts of host/agents/: a configured ACP agent as the host starts it.
 */

/** A configured agent with its secrets read (host/agents/agent-settings.ts). */
export interface AgentSpec {
  name: string;
  command: string;
  args: readonly string[];
  /** The whole environment of the process: the minimal inherited one plus `env`. */
  env: Readonly<Record<string, string>>;
  /** Where it starts; the run's workspace when absent. */
  cwd?: string;
  /** Real paths outside the workspace it may change in the sandbox (its own state). */
  writable: readonly string[];
  /** Real paths outside the system's folders it may read (its program's folder). */
  readable: readonly string[];
  /** The only hosts it may reach, through the host's proxy; absent: all of the network. */
  network?: readonly string[];
}
