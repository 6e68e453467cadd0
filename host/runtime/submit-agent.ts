/**
 * The agent `run.submit` names, checked against the host's agents and the session's
 * earlier runs (docs/agents.md).
 */
import { TetherError, type OpArgs } from '../../protocol/index.js';
import type { Store } from '../store/index.js';
import type { AgentLauncher } from './types.js';

/**
 * The agent `run.submit` names, checked: one the host is configured with, and the one the
 * session's runs were given to (a session is one conversation, with the host's own loop
 * or with one agent). Undefined: the host's own loop.
 */
export function checkAgent(
  agents: AgentLauncher | null,
  store: Store,
  args: OpArgs<'run.submit'>,
  sessionId: string | undefined,
): string | undefined {
  const { agent } = args;
  if (agent !== undefined && agents?.has(agent) !== true) {
    const message = `no agent named ${agent} is configured on this host`;
    throw new TetherError('invalid_request', message, {
      details: { issues: [{ path: 'agent', message }] },
    });
  }
  if (sessionId === undefined) return agent;
  const earlier = store.runs.newestRunAgent(sessionId);
  if (earlier !== undefined && earlier !== (agent ?? null)) {
    const message =
      earlier === null
        ? "the session's runs are Tether's own: start a new task for an agent"
        : `the session's runs are the agent ${earlier}'s: a follow-up goes to it`;
    throw new TetherError('invalid_request', message, {
      details: { issues: [{ path: 'agent', message }] },
    });
  }
  return agent;
}
