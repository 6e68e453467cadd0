/**
 * host/agents/: ACP agents (Claude Code, Codex, any agent that speaks the Agent Client
 * Protocol) as kinds of run the host owns (docs/agents.md): their config, their processes
 * inside the sandbox, the host's side of ACP through the official SDK, and what the
 * agent's calls, prompt and turn's end mean (the run records them: host/runtime/agent-run.ts).
 */
export { AgentsConfig } from './agent-config.js';
export { AgentSettingsError, resolveAgents } from './agent-settings.js';
export { Agents, type StartedAgent } from './agents.js';
export { AgentSession, requestError, type AgentRequests } from './agent-session.js';
export {
  cardInput,
  oversizedCard,
  permissionCall,
  unfaithfulReason,
  updatedCall,
  type AgentCall,
} from './agent-calls.js';
export { cutNote, fitText, planProblem, TOOL_CALLS_MAX, WAITING_MAX } from './agent-limits.js';
export { taskPrompt } from './agent-prompt.js';
export {
  AGENT_SETUP_MS,
  CANCEL_WAIT_MS,
  crashed,
  exitOf,
  firstEnd,
  raceWork,
  requestFailed,
  stopReasonFailure,
  turnEndMessage,
  usageOf,
  type AuthMethodOffered,
  type TurnEnd,
} from './turn-end.js';
export type { AgentSpec } from './types.js';
