/**
 * Records carried in results, snapshots and events (docs/protocol.md §6.3). Host-made
 * records keep unknown fields (`looseObject`) so a newer host can add fields safely.
 */
import { z } from 'zod/mini';
import { Digest, JsonObject, Millis, OpaqueId, PeerId, Sha256Hex } from './primitives.js';
import { DevicePush } from './push.js';
import { ApprovalState, RunState, ToolCallState } from './states.js';

export const RunInput = z.strictObject({
  text: z.string().check(z.minLength(1), z.maxLength(100_000)),
  /**
   * Ids of complete `attachment.put` uploads, in the order the model sees them, at most
   * `MAX_RUN_ATTACHMENTS`: the host finds each and counts them (host/runtime), so their
   * checks stay out of the app's first load.
   */
  attachments: z.optional(z.array(z.string())),
});
export type RunInput = z.infer<typeof RunInput>;

/** Why a run failed or stopped, for people and for code. */
export const RunError = z.looseObject({ code: z.string(), message: z.string() });
export type RunError = z.infer<typeof RunError>;

export const Session = z.looseObject({
  id: OpaqueId,
  title: z.string(),
  workspace: z.string(),
  createdAt: Millis,
  activeRunId: z.nullable(OpaqueId),
  // `worktree`, when the session's runs work in their own: `SessionWorktree` of
  // protocol/worktree.ts, parsed where it is shown (named here it would cost the first load).
});
export type Session = z.infer<typeof Session>;

export const Run = z.looseObject({
  id: OpaqueId,
  sessionId: OpaqueId,
  state: RunState,
  input: z.looseObject({ text: z.string() }),
  model: z.nullable(z.string()),
  createdAt: Millis,
  startedAt: z.nullable(Millis),
  finishedAt: z.nullable(Millis),
  continuesRunId: z.nullable(OpaqueId),
  error: z.nullable(RunError),
});
export type Run = z.infer<typeof Run>;

/**
 * The allow rule added from a remote that let a tool call run without asking: which rule,
 * its words, and the device that added it and when (docs/policy.md).
 */
export const AllowedBy = z.looseObject({
  ruleId: OpaqueId,
  words: z.array(z.string()),
  deviceId: z.string(),
  deviceName: z.string(),
  addedAt: Millis,
});
export type AllowedBy = z.infer<typeof AllowedBy>;

/**
 * What a tool call touches, as its tool declares it (docs/protocol.md §10): a file or folder
 * it reads, a file it writes, a command, or opaque (an MCP server's tool). Remotes list
 * changes by it rather than by tool names; hosts before it send none.
 */
export const ToolAccessKind = z.enum(['read', 'write', 'command', 'opaque']);
export type ToolAccessKind = z.infer<typeof ToolAccessKind>;

export const ToolCall = z.looseObject({
  id: OpaqueId,
  runId: OpaqueId,
  name: z.string(),
  input: z.unknown(),
  access: z.optional(ToolAccessKind),
  inputDigest: Digest,
  state: ToolCallState,
  startedAt: z.nullable(Millis),
  finishedAt: z.nullable(Millis),
  result: z.nullable(JsonObject),
  /** Set when a rule added from a remote let the call run unasked. */
  allowedBy: z.optional(AllowedBy),
});
export type ToolCall = z.infer<typeof ToolCall>;

/**
 * A path outside the workspace that approving the call lets it touch (the command's
 * folder, the file written), by real path. The approval is bound to exactly this path.
 */
const OutsideAccess = z.looseObject({
  path: z.string(),
  access: z.enum(['read', 'write']),
});

/**
 * The allow rule an approval card may offer ("Allow like this from now on",
 * docs/policy.md "Rules added from the app"), computed by the host: the exact words, the
 * workspace it would hold in, and what else it would match in plain words; or why none is
 * offered.
 */
export const RuleProposal = z.union([
  z.looseObject({
    offered: z.literal(true),
    words: z.array(z.string()).check(z.minLength(1)),
    workspace: z.string(),
    matches: z.string(),
  }),
  z.looseObject({ offered: z.literal(false), reason: z.string() }),
]);
export type RuleProposal = z.infer<typeof RuleProposal>;

/**
 * Where a command runs (docs/policy.md, "The sandbox"), for the approval card's most
 * important line. `contained`: inside the OS sandbox (`kind` bwrap or seatbelt); it may
 * change files only in `writable` (the workspace, and what the call asked for), reach the
 * network only when `network` (and then, when `networkHosts` is given, only those hosts,
 * through the host's proxy), and cannot read the secret set. Not contained: full access,
 * and `reason` says why (no sandbox on this machine).
 */
export const CommandSandbox = z.union([
  z.looseObject({
    contained: z.literal(true),
    kind: z.string(),
    writable: z.array(z.string()),
    network: z.boolean(),
    networkHosts: z.optional(z.array(z.string())),
  }),
  z.looseObject({ contained: z.literal(false), reason: z.string() }),
]);
export type CommandSandbox = z.infer<typeof CommandSandbox>;

/**
 * What an approval card shows: the command, the diff, or the path (section 6.4).
 * `command`: the full command line and the real path of its folder. `write`: the target
 * as named in the diff (`path`), its real path (`realPath`; absent in rows stored before
 * it existed) and the diff. `path`: a read, or a tool without a preview of its own. Any
 * kind carries `outside` when the call reaches outside the workspace. `mcp`: a tool of an
 * MCP server.
 */
export const ApprovalPreview = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('command'),
    command: z.string(),
    cwd: z.string(),
    sandbox: z.optional(CommandSandbox),
    outside: z.optional(OutsideAccess),
    ruleProposal: z.optional(RuleProposal),
  }),
  z.looseObject({
    kind: z.literal('write'),
    path: z.string(),
    realPath: z.optional(z.string()),
    diff: z.string(),
    baseSha256: z.nullable(Sha256Hex),
    newSha256: Sha256Hex,
    outside: z.optional(OutsideAccess),
    ruleProposal: z.optional(RuleProposal),
  }),
  z.looseObject({
    kind: z.literal('path'),
    path: z.string(),
    access: z.string(),
    outside: z.optional(OutsideAccess),
    ruleProposal: z.optional(RuleProposal),
  }),
  /**
   * A tool of an MCP server (docs/protocol.md §10): the server's name, the tool's own name
   * on it, its description as the server gave it (capped), and whether the server says
   * the tool only reads (`readOnlyHint`: a claim, trusted only where the host's config
   * says so). The arguments are the approval's `input`.
   */
  z.looseObject({
    kind: z.literal('mcp'),
    server: z.string(),
    tool: z.string(),
    description: z.string(),
    readOnlyHint: z.boolean(),
    outside: z.optional(OutsideAccess),
    ruleProposal: z.optional(RuleProposal),
  }),
  /**
   * An ACP agent's permission request (docs/agents.md): the agent's name; what it asks
   * for (title, kind, locations, raw input: `AgentToolInput` of protocol/agents.ts) is the
   * approval's `input`.
   */
  z.looseObject({
    kind: z.literal('agent'),
    agent: z.string(),
    sandbox: z.optional(CommandSandbox),
    outside: z.optional(OutsideAccess),
    ruleProposal: z.optional(RuleProposal),
  }),
]);
export type ApprovalPreview = z.infer<typeof ApprovalPreview>;

export const Approval = z.looseObject({
  id: OpaqueId,
  toolCallId: OpaqueId,
  runId: OpaqueId,
  state: ApprovalState,
  name: z.string(),
  input: z.unknown(),
  workspace: z.string(),
  inputDigest: Digest,
  preview: ApprovalPreview,
  reason: z.string(),
  expiresAt: Millis,
  decidedBy: z.nullable(z.string()),
  /** When it was answered (an extension: absent from hosts before it; null while pending). */
  decidedAt: z.optional(z.nullable(Millis)),
});
export type Approval = z.infer<typeof Approval>;

/** One persisted assistant message (`message.completed`). */
export const Message = z.looseObject({
  id: OpaqueId,
  runId: OpaqueId,
  text: z.string(),
  reasoning: z.nullable(z.string()),
  finishReason: z.string(),
  usage: z.nullable(JsonObject),
  createdAt: Millis,
});
export type Message = z.infer<typeof Message>;

export const Artifact = z.looseObject({
  id: OpaqueId,
  runId: OpaqueId,
  toolCallId: z.nullable(OpaqueId),
  kind: z.string(),
  name: z.string(),
  bytes: z.int().check(z.nonnegative()),
  sha256: Sha256Hex,
  createdAt: Millis,
});
export type Artifact = z.infer<typeof Artifact>;

export const Device = z.looseObject({
  deviceId: PeerId,
  name: z.string(),
  platform: z.string(),
  pairedAt: Millis,
  lastSeenAt: z.nullable(Millis),
  revoked: z.boolean(),
  current: z.boolean(),
  /** Web Push state (docs/push.md); absent from hosts without push. */
  push: z.optional(DevicePush),
});
export type Device = z.infer<typeof Device>;

/**
 * One allow rule as `policy.rules` lists it: from the host's config file (`config`, every
 * workspace, not removable from a remote) or added from a remote (`app`, one workspace).
 */
export const AllowRule = z.looseObject({
  id: OpaqueId,
  source: z.enum(['config', 'app']),
  words: z.array(z.string()),
  /** The workspace's real path; null for a config rule, which holds in every workspace. */
  workspace: z.nullable(z.string()),
  addedBy: z.nullable(z.looseObject({ deviceId: z.string(), name: z.string() })),
  addedAt: z.nullable(Millis),
  removable: z.boolean(),
});
export type AllowRule = z.infer<typeof AllowRule>;

export const Workspace = z.looseObject({
  name: z.string(),
  path: z.string(),
  // `isolation: "worktree"` when the config makes that a new task's default.
});
export type Workspace = z.infer<typeof Workspace>;

/** In-progress, not durable state attached to `run.get` and run snapshots. */
export const LiveState = z.looseObject({
  durable: z.literal(false),
  messageId: z.nullable(OpaqueId),
  text: z.string(),
  reasoning: z.string(),
  outputs: z.array(z.looseObject({ toolCallId: OpaqueId, offset: z.int(), text: z.string() })),
});
export type LiveState = z.infer<typeof LiveState>;

/** The states of an MCP server the host runs or reaches (`host.info.mcpServers`). */
const MCP_SERVER_STATES = ['connecting', 'connected', 'restarting', 'failed', 'stopped'] as const;

/**
 * One configured MCP server as `host.info` lists it: how it is reached, its state, the
 * names of the tools it offers now (`mcp__<server>__<tool>`), and its last error.
 */
export const McpServerInfo = z.looseObject({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  state: z.enum(MCP_SERVER_STATES),
  tools: z.array(z.string()),
  lastError: z.optional(z.string()),
  /** A stdio server: what the OS sandbox lets it touch (absent from older hosts). */
  sandbox: z.optional(CommandSandbox),
});
export type McpServerInfo = z.infer<typeof McpServerInfo>;
