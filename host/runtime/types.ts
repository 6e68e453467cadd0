/**
 * Contracts of host/runtime/: its configuration and the ephemeral stream it publishes.
 */
import type {
  AgentInfo,
  McpServerInfo,
  OutputMessage,
  PreviewMessage,
} from '../../protocol/index.js';
import type { StartedAgent } from '../agents/index.js';
import type { ModelAdapter, Transcriber } from '../model/index.js';
import type { AddedRule, PolicyDecision } from '../policy/index.js';
import type { PushDispatcher } from '../push/index.js';
import type { ToolAccess, ToolDefinition } from '../tools/index.js';

/** Budgets and bounds of every run. */
export interface RuntimeLimits {
  /** Runs executing at once on the host (waiting for approval does not count). */
  maxActiveRuns: number;
  /** Model requests in one run before it fails with `budget_exhausted`. */
  maxModelTurns: number;
  /** Wall time of one run before it fails with `wall_time_exceeded`. */
  runWallTimeMs: number;
  /** Characters of one tool result given to the model (head and tail kept). */
  toolResultMaxChars: number;
  /**
   * Tokens the model's context holds (`model.contextTokens`): a request takes at most this
   * less a reserve for the answer; longer sessions are summarised (docs/sessions.md).
   */
  contextTokens: number;
  /** Bytes of one tool's output kept on disk; past it output is drained and dropped. */
  toolOutputMaxBytes: number;
  /** How long an approval waits before it resolves as denied by `expiry`. */
  approvalTtlMs: number;
  /** Bytes of one attachment (`attachment.put`), and of all a run is given together. */
  attachmentMaxBytes: number;
  runAttachmentsMaxBytes: number;
  /** Bytes an upload leaves free on the data directory's disk (no chunk takes them). */
  attachmentDiskReserveBytes: number;
}

export const DEFAULT_LIMITS: RuntimeLimits = {
  maxActiveRuns: 1,
  maxModelTurns: 50,
  runWallTimeMs: 2 * 60 * 60 * 1000,
  toolResultMaxChars: 16_000,
  contextTokens: 128_000,
  toolOutputMaxBytes: 64 * 1024 * 1024,
  approvalTtlMs: 24 * 60 * 60 * 1000,
  attachmentMaxBytes: 20 * 1024 * 1024,
  runAttachmentsMaxBytes: 50 * 1024 * 1024,
  attachmentDiskReserveBytes: 1024 * 1024 * 1024,
};

/**
 * Decides a call; never executes anything. `addedRules` are the rules added from remotes
 * for `workspace` ("Allow like this from now on"), read from the store at each decision.
 * `scope.worktree`: the workspace is the run's own worktree (policy `worktree`).
 */
export type PolicyFn = (
  call: { name: string; access: ToolAccess },
  workspace: string,
  addedRules: readonly AddedRule[],
  scope?: { worktree: boolean; readOnly?: readonly string[] },
) => Promise<PolicyDecision>;

/** The model the runtime talks to; null when none is configured. */
export interface RuntimeModel {
  adapter: ModelAdapter;
  /** The default model name, and every name a run may ask for. */
  name: string;
  available: readonly string[];
}

/** A folder runs may work in: its unique name and real path. */
export interface WorkspaceRef {
  name: string;
  path: string;
  /** A new task's default: `worktree` works on a branch of its own (docs/worktrees.md). */
  isolation?: 'worktree';
}

/**
 * US dollars per million tokens, by model name (the config's `prices`): input, cached input
 * (input's price when absent) and output, reasoning included.
 */
export type ModelPrices = Readonly<
  Record<string, { inputPerMTok: number; cachedInputPerMTok?: number; outputPerMTok: number }>
>;

/** The tools a run may call, looked up by name and listed for each model turn. */
export interface ToolTable {
  get(name: string): ToolDefinition<unknown> | undefined;
  /** The tools offered to the model now (read again before every turn). */
  values(): Iterable<ToolDefinition<unknown>>;
}

/**
 * Tools that come and go while the host runs: those of MCP servers (host/mcp/). `get`
 * finds a tool its server listed last even while the server reconnects (its call then
 * fails unsent); `offeredTools` has only those of connected servers.
 */
export interface ToolServers {
  offeredTools(): readonly ToolDefinition<unknown>[];
  get(name: string): ToolDefinition<unknown> | undefined;
  /** What `host.info.mcpServers` says. */
  servers(): McpServerInfo[];
}

/** The host's ACP agents (host/agents/): listed, checked by name, started for a run. */
export interface AgentLauncher {
  has(name: string): boolean;
  /** `host.info.agents` for runs in `workspace`; null with none configured. */
  list(workspace: string): AgentInfo[] | null;
  /** What the sandbox holds of `name` working in `workspace`. */
  scope(name: string, workspace: string): AgentInfo['sandbox'];
  /**
   * `gitReadOnly`: a worktree run's repository folder, shown read-only in the sandbox as
   * run_command's is (its git works; its hooks and objects stay unchanged).
   */
  start(
    name: string,
    workspace: string,
    options?: { gitReadOnly?: readonly string[] },
  ): Promise<StartedAgent>;
}

export interface RuntimeOptions {
  model: RuntimeModel | null;
  /** Workspaces the user allowed, real paths; the first is the default. */
  workspaces: readonly WorkspaceRef[];
  limits?: Partial<RuntimeLimits>;
  /** Tools the model may call; the read-only tools by default. */
  tools?: readonly ToolDefinition<unknown>[];
  /** Tools of MCP servers, besides `tools`. */
  toolServers?: ToolServers;
  /** Allow / ask / deny per call; by default read-only tools are allowed and others ask. */
  policy?: PolicyFn;
  /** The config file's allow rules, as `policy.rules` lists them. */
  configAllowRules?: readonly (readonly string[])[];
  /** Kills a process group a crashed host left running (recovery at start). */
  killProcessGroup?: (pgid: number) => Promise<unknown>;
  /**
   * Where runs' own worktrees are made (`<data>/worktrees`, docs/worktrees.md); without
   * it `isolation: "worktree"` is refused.
   */
  worktreesDir?: string;
  /** Web Push delivery (docs/push.md); without it the push ops are `invalid_state`. */
  push?: PushDispatcher;
  /** Turns usage into an estimated cost (`run.usage`); models without a price get none. */
  prices?: ModelPrices;
  /** ACP agents a run may be given to (`run.submit`'s `agent`, docs/agents.md). */
  agents?: AgentLauncher;
  /** The transcription endpoint of `voice.transcribe` (docs/voice.md); none by default. */
  transcriber?: Transcriber | null;
}

/** Not durable: streaming text and output tails, for whoever is watching now. */
export type LiveMessage = PreviewMessage | OutputMessage;
/** The run a live message is of, and its session (null for a run the store lacks). */
export interface LiveRun {
  runId: string;
  sessionId: string | null;
}
/** Hears a live message of the run `run` (an `output` frame names only its tool call). */
export type LiveListener = (message: LiveMessage, run: LiveRun) => void;

/** Who asked for something: a deviceId, or `local` for the host's own CLI. */
export type Actor = string;
