/**
 * ACP agents as kinds of run (docs/agents.md): how `host.info.agents` lists the agents a
 * host is configured with, and what an agent's approval card shows. Parsed where they are
 * shown (the app's New task and its approval card): named in `host.info`'s schema they
 * would cost the app's first load.
 */
import { z } from 'zod/mini';

/** An agent's name in the config (`agents.<name>`) and in `run.submit`'s `agent`. */
export const AGENT_NAME = /^[A-Za-z0-9-]{1,32}$/;

/**
 * What of the agent the OS sandbox holds: `contained` (its kind, the folders it may change,
 * whether it reaches the network: an agent needs its provider, and no sandbox here filters
 * by host), or not contained and why.
 */
const AgentSandbox = z.union([
  z.looseObject({
    contained: z.literal(true),
    kind: z.string(),
    writable: z.array(z.string()),
    network: z.boolean(),
  }),
  z.looseObject({ contained: z.literal(false), reason: z.string() }),
]);

/**
 * One configured agent as `host.info.agents` lists it: `idle` (none of its runs works
 * now), `running`, or `failed` (its last start or turn failed: `lastError`, masked).
 */
export const AgentInfo = z.looseObject({
  name: z.string(),
  state: z.enum(['idle', 'running', 'failed']),
  lastError: z.optional(z.string()),
  sandbox: AgentSandbox,
});
export type AgentInfo = z.infer<typeof AgentInfo>;

/**
 * An agent's permission request as the card shows it (the approval's `input`, which its
 * digest covers): the tool call's title, kind, locations and raw input exactly as the
 * agent sent them.
 */
export const AgentToolInput = z.looseObject({
  title: z.string(),
  kind: z.string(),
  locations: z.array(z.looseObject({ path: z.string(), line: z.optional(z.nullable(z.int())) })),
  rawInput: z.unknown(),
});
export type AgentToolInput = z.infer<typeof AgentToolInput>;
