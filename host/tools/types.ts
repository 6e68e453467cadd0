/**
 * The contracts between tools and the runtime that runs them (docs/protocol.md §10).
 */
import type { z } from 'zod';
import type { ApprovalPreview, ToolFailureCode } from '../../protocol/index.js';

/** What a tool may use while it runs. */
export interface ToolContext {
  /** Real path of the workspace root (symlinks resolved). */
  workspace: string;
  /** Aborts the tool; an aborted tool returns a `cancelled` failure. */
  signal: AbortSignal;
  /**
   * Where a tool with streaming output (run_command) writes it: a file with a byte cap,
   * and a callback for the live tail. Tools without streaming output ignore it.
   */
  output?: ToolOutputSink;
  /** Called as soon as a child process group exists, so a crashed host can kill it later. */
  onProcessGroup?: (pgid: number) => void;
  /**
   * True when no person approved this call (an allow rule or a tools setting let it run):
   * a command then gets the environment of host/tools/unattended-env.ts.
   */
  unattended?: boolean;
  /** A path outside the workspace the user approved for this one call, and the access. */
  outsideAccess?: { path: string; kind: 'read' | 'write' };
  /**
   * The file's digest in the write preview the user approved (null: no file). A write
   * whose input carries no `expectedSha256` must still find exactly that file.
   */
  approvedBaseSha256?: string | null;
  /**
   * Folders outside the workspace a command may read, shown read-only in its sandbox, as
   * the host names them (never the model): a worktree's repository git folder, so that
   * git inside reads its history (and changes none of it).
   */
  gitReadOnly?: readonly string[];
  /**
   * Real paths of folders outside the workspace a tool may read and never write, as the
   * host names them: the run's attachments (docs/attachments.md).
   */
  readOnlyFolders?: readonly string[];
}

/**
 * True for an absolute path no tool may read or list (policy's protected paths: `.env`
 * files, keys, the config's own patterns); the search tools skip what it names.
 */
export type ProtectedPathCheck = (absolute: string) => boolean;

/** What a tool's preview may use. */
export type ToolPreviewContext = Pick<ToolContext, 'workspace' | 'signal' | 'outsideAccess'>;

/** The file a tool streams its output into, and the live tail's listener. */
export interface ToolOutputSink {
  /** The file to create (fsynced before the tool resolves). */
  path: string;
  /** Bytes kept in the file; past it output is still drained and dropped. */
  capBytes: number;
  /** Each chunk as it arrives; `offset` counts the characters streamed before it. */
  onChunk(text: string, offset: number): void;
}

/** A file a tool wrote its full output to (see {@link ToolOutputSink}). */
export interface ToolOutputFile {
  path: string;
  bytes: number;
  sha256: string;
  truncated: boolean;
}

/** Codes of failed tool results: the wire's table (protocol/failures.ts). */
export type ToolErrorCode = ToolFailureCode;

/** The outcome of one tool call. Expected failures are results, never throws. */
export interface ToolResult {
  /**
   * `unknown`: the call was sent and no outcome came back (an MCP server died or did not
   * answer in time): it may or may not have happened, and is never sent again by itself.
   */
  status: 'succeeded' | 'failed' | 'unknown';
  /** One line for people, e.g. `read 120 lines of src/a.ts (3.2 KiB)`. */
  summary: string;
  /** What the model sees; each tool bounds its size. */
  content: string;
  /** Present when `status` is `failed`. */
  error?: { code: ToolErrorCode; message: string };
  /** Structured facts (sha256, bytes, entries, truncated…) for the store and the UI. */
  data?: Record<string, unknown>;
  /** Set when the tool streamed its full output into the sink's file itself. */
  outputFile?: ToolOutputFile;
  /** A command's exit: code or signal, and how long it ran. */
  exit?: { code: number | null; signal: string | null; durationMs: number };
  /** Artifacts the tool made (a write's diff), stored and announced by the runtime. */
  artifacts?: { kind: string; name: string; content: string }[];
}

/**
 * What one call of a tool touches, as the tool declares it:
 * - `read`: a file, or a folder whose tree it reads (the search tools), as the input
 *   names it (relative to the workspace, or absolute);
 * - `write`: the file it creates or changes;
 * - `command`: a command line run in `cwd` inside the OS sandbox, with what more it asks
 *   of the sandbox (`network`; `hosts`: the network only to those; `write`: paths outside
 *   the workspace);
 * - `opaque`: Tether cannot see what it touches (a tool of an MCP server).
 */
export type ToolAccess =
  | { kind: 'read'; path: string }
  | { kind: 'write'; path: string }
  | CommandAccess
  | { kind: 'opaque' };

/** A command line run in `cwd` inside the OS sandbox, and what more it asks of it. */
export interface CommandAccess {
  kind: 'command';
  command: string;
  cwd: string;
  sandbox: { network: boolean; hosts?: readonly string[]; write: readonly string[] };
}

/** A tool the model can call. `I` is the validated input type. */
export interface ToolDefinition<I> {
  /** The name the model calls, fixed by docs/protocol.md §10. */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  /** Strict schema of the input: unknown keys are rejected. */
  input: z.ZodType<I>;
  /** JSON schema of `input` sent to the model (from `z.toJSONSchema`, without `$schema`). */
  parameters: Record<string, unknown>;
  /**
   * What a call with `input` touches (docs/policy.md): the one declaration policy decides
   * on, the command's sandbox is built from, and the changes view lists writes by.
   */
  access(input: I): ToolAccess;
  /** Runs the tool on validated input; resolves with a failed result for expected failures. */
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
  /**
   * What an approval card shows for this input, computed against things as they are now
   * (the command and its folder, the diff of a write). `outsideAccess` is the path outside
   * the workspace the approval would allow, so a write there still previews its diff.
   * Tools that never ask omit it.
   */
  preview?(input: I, ctx: ToolPreviewContext): Promise<ApprovalPreview>;
}
