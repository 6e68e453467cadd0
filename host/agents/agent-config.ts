/**
 * The `agents` section of the host's config file (docs/agents.md): each ACP agent a run
 * may be given to, the program that speaks ACP on its stdio, its environment (secrets as
 * `{"keychain": …}` / `{"file": …}`, like MCP servers'), its folder, and the folders of
 * its own state it may change inside the sandbox besides the run's workspace, and the
 * hosts it may reach.
 */
import { z } from 'zod';
import { AGENT_NAME } from '../../protocol/index.js';
import { AbsolutePath, EnvName, SANDBOX_SETTINGS, SecretValue } from '../mcp/index.js';

const AgentSettings = z.strictObject(
  {
    /** The program (looked up on the minimal environment's PATH) and its arguments. */
    command: z.string({ error: 'expected a program' }).min(1, { error: 'expected a program' }),
    args: z.array(z.string(), { error: 'expected a list of arguments' }).optional(),
    env: z.record(EnvName, SecretValue, { error: 'expected an object' }).optional(),
    /** Where the program starts; the run's workspace by default. */
    cwd: AbsolutePath.optional(),
    /** Besides the run's workspace (or worktree). */
    ...SANDBOX_SETTINGS,
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
