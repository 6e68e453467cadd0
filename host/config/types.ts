/**
 * Contracts of the host's configuration.
 */
import type { LogLevel } from '../log/index.js';
import type { AgentsConfig } from '../agents/index.js';
import type { McpConfig } from '../mcp/index.js';
import type { ProviderKind } from '../model/index.js';
import type { PolicyConfig } from '../policy/index.js';

/** A folder the host's user allows runs in (docs/protocol.md §9). */
export interface Workspace {
  /** Unique among the host's workspaces: the folder's name, `-2`, `-3`… for repeats. */
  name: string;
  /** The real path (symlinks resolved). */
  path: string;
  /** A new task's default when the config says so: a branch of its own (docs/worktrees.md). */
  isolation?: 'worktree';
}

/** How to reach an OpenAI-compatible chat completions endpoint. */
export interface ModelSettings {
  baseUrl: string;
  model: string;
  /** Secret: never logged, stored or passed to tools. Absent for servers that need none. */
  apiKey?: string;
  /** `deepseek` or `openai` when the base URL is theirs, or as configured. */
  provider?: ProviderKind;
  /** Extra fields merged into every request body, verbatim. */
  extraBody?: Record<string, unknown>;
  /** Tokens the model's context holds; sessions longer than it are summarised. */
  contextTokens?: number;
}

/**
 * The OpenAI-compatible speech-to-text endpoint (`POST {baseUrl}/audio/transcriptions`)
 * `voice.transcribe` sends recordings to (docs/voice.md).
 */
export interface VoiceSettings {
  baseUrl: string;
  model: string;
  /** The language spoken (ISO 639-1), when the user set one; a request's own wins. */
  language?: string;
  /** Secret, from `tether voice set --key-stdin`: never logged, stored or sent elsewhere. */
  apiKey?: string;
}

/** Bounds on runs (docs/architecture.md, "Memory is bounded everywhere"). */
export interface RunLimits {
  /** Runs that may be active on the host at once. */
  maxActiveRuns: number;
  /** Model requests one run may make. */
  maxModelTurns: number;
  /** Wall-clock budget of one run. */
  runWallTimeMs: number;
  /** A model stream silent for this long is abandoned. */
  modelIdleTimeoutMs: number;
  /** A tool result is cut to this many characters before it goes back to the model. */
  toolResultMaxChars: number;
  /** Bytes of one attachment a remote may upload (docs/attachments.md). */
  attachmentMaxBytes: number;
  /** Bytes of every attachment one run may be given, together. */
  runAttachmentsMaxBytes: number;
  /** Bytes an upload leaves free on the data directory's disk. */
  attachmentDiskReserveBytes: number;
}

/** How much of an approval or a run a push's text names (docs/push.md). */
export type PushBody = 'names' | 'none' | 'full';

/** Web Push settings (docs/push.md). */
export interface PushSettings {
  /** The VAPID subject: a `mailto:` or `https:` URL, checked at start. */
  subject: string;
  /** Origins allowed besides the known push services (`https://*.host` or exact). */
  allowedEndpoints: string[];
  /** `names`: the tool and the workspace; `none`: only the title; `full`: the command or path. */
  body: PushBody;
  /** Delay before the first retry; each next one doubles, up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Tries of one push before it is given up (recorded as the device's `lastError`). */
  maxAttempts: number;
  /** One POST to a push service is abandoned after this long (and retried). */
  requestTimeoutMs: number;
}

/**
 * When the host keeps the machine from sleeping: `runs` while any run is active or waits
 * for approval, `never`, or a number of hours: as `runs`, but a run that has waited for
 * approval longer than that no longer keeps it awake.
 */
export type KeepAwake = 'runs' | 'never' | number;

/**
 * Where a new host key is made: the macOS Keychain or `<dataDir>/host-key.json` (0600).
 * Changing it after the first start makes a new host identity, so paired devices must
 * pair again.
 */
export type KeyStore = 'keychain' | 'file';

/** The host's validated configuration. */
export interface HostConfig {
  /** Absolute path of the data directory. */
  dataDir: string;
  /** The config file that was read, if any. */
  configFile: string | null;
  /** TCP port; 0 picks a free one (tests). */
  port: number;
  bind: string;
  /** Shown to remotes. */
  hostName: string;
  /** At least one, except with `demo` and none given: the host then makes a sample one. */
  workspaces: Workspace[];
  /** Null when no model is configured (or with `demo`): the host still starts and pairs. */
  model: ModelSettings | null;
  /** Null when no transcription endpoint is configured: `voice.transcribe` then says how. */
  voice: VoiceSettings | null;
  /** `--https`: serve HTTPS with the local CA kept in `<dataDir>/tls`. */
  https: boolean;
  /** `--tailscale`: publish the host with `tailscale serve` and pair on its ts.net origin. */
  tailscale: boolean;
  /** `--demo`: the built-in scripted demo model, a data dir and workspace of its own. */
  demo: boolean;
  limits: RunLimits;
  /** The config file's `policy` with its defaults applied (docs/policy.md). */
  policy: PolicyConfig;
  /** The config file's `mcp` (no servers without it); secrets are still references here. */
  mcp: McpConfig;
  /** The config file's `agents` (none without it); secrets are still references here. */
  agents: AgentsConfig;
  logLevel: LogLevel;
  keyStore: KeyStore;
  push: PushSettings;
  /** `power.keepAwake` (default `runs`). */
  keepAwake: KeepAwake;
  /** `prices`: US dollars per million tokens by model name; empty without the setting. */
  prices: Readonly<
    Record<string, { inputPerMTok: number; cachedInputPerMTok?: number; outputPerMTok: number }>
  >;
  /** Things worth a log line at start (settings that were ignored, and why). */
  warnings: string[];
}

/** What `loadHostConfig` reads; everything is passed in so tests need no globals. */
export interface LoadHostConfigOptions {
  /** Arguments after `tether start`. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  platform: NodeJS.Platform;
  homedir: string;
}

/** One problem in the configuration: where it came from, which setting, what is wrong. */
export interface ConfigIssue {
  /** `command line`, `environment`, `config file /path`, `model settings`, `data directory`. */
  source: string;
  /** The setting as that source names it: `--port`, `TETHER_PORT`, `limits.maxActiveRuns`. */
  field: string;
  message: string;
}
