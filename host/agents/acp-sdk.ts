/**
 * What an agent run uses of the official ACP SDK, in one module that agent-session.ts
 * loads with `import()` on the first agent run: a host with no agents, or whose agents
 * never run, never loads it (docs/performance.md, "Idle RSS").
 */
export {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
