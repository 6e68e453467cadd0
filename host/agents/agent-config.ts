/**
 * The `agents` section of the host's config file (docs/agents.md): each ACP agent a run
 * may be given to, the program that speaks ACP on its stdio, its environment (secrets as
 * `{"keychain": …}` / `{"file": …}`, like MCP servers'), its folder, and the folders of
 * its own state it may change inside the sandbox besides the run's workspace, and the
 * hosts it may reach.
 */
import { z } from 'zod';
import { AGENT_NAME } from '../../protocol/index.js';
import { AbsolutePath, EnvName, SecretValue } from '../mcp/index.js';
import { NetworkHost } from '../sandbox/index.js';

const AgentSettings = z.strictObject(
  {
    /** The program (looked up on the minimal environment's PATH) and its arguments. */
    command: z.string({ error: 'expected a program' }).min(1, { error: 'expected a program' }),
    args: z.array(z.string(), { error: 'expected a list of arguments' }).optional(),
    env: z.record(EnvName, SecretValue, { error: 'expected an object' }).optional(),
    /** Where the program starts; the run's workspace by default. */
    cwd: AbsolutePath.optional(),
    /**
     * Folders or files outside the workspace the agent may change in the sandbox (its own
     * settings and sessions, e.g. `~/.claude`), absolute; they must exist at start.
     */
    writable: z.array(AbsolutePath, { error: 'expected a list of absolute paths' }).optional(),
    /**
     * Folders outside the system's and the home folder's toolchains the agent reads (its
     * program's own folder when it is installed elsewhere), absolute; they must exist.
     */
    readable: z.array(AbsolutePath, { error: 'expected a list of absolute paths' }).optional(),
    /**
     * The only hosts the agent may reach (its provider's API), through the host's proxy:
     * `api.anthropic.com`, `*.example.com`, `host:port`; `[]` for none. Absent: all of
     * the network, as the card warns.
     */
    network: z
      .array(NetworkHost, { error: 'expected a list of host names' })
      .max(64, { error: 'expected at most 64 hosts' })
      .optional(),
  },
  { error: 'expected an object' },
);
export type AgentSettings = z.output<typeof AgentSettings>;

/** `agents` in the config file: `{"<name>": {command, args, env, cwd, writable}}`. */
export const AgentsConfig = z
  .record(
    z.string().regex(AGENT_NAME, {
      error: 'expected an agent name of letters, digits and - (at most 32)',
    }),
    AgentSettings,
    {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? 'expected an agent name of letters, digits and - (at most 32)'
          : issue.code === 'invalid_type'
            ? 'expected an object of agents by name'
            : undefined,
    },
  )
  .refine((agents) => Object.keys(agents).length <= 16, { error: 'expected at most 16 agents' });
export type AgentsConfig = z.output<typeof AgentsConfig>;
