/**
 * host/agents/: ACP agents (Claude Code, Codex, any agent that speaks the Agent Client
 * Protocol) as kinds of run the host owns (docs/agents.md): their config, their processes
 * inside the sandbox, and the host's side of ACP through the official SDK.
 */
export { AgentsConfig } from './agent-config.js';
export { resolveAgents } from './agent-settings.js';
export { Agents, type StartedAgent } from './agents.js';
export { AgentSession, requestError, type AgentRequests } from './agent-session.js';
export type { AgentSpec } from './types.js';
