/**
 * The contracts between tools and the runtime that runs them (PROTOCOL.md section 10).
 */
import type { z } from 'zod';

/** What a tool may use while it runs. */
export interface ToolContext {
  /** Real path of the workspace root (symlinks resolved). */
  workspace: string;
  /** Aborts the tool; an aborted tool returns a `cancelled` failure. */
  signal: AbortSignal;
}

/**
 * Codes of failed tool results:
 * - `invalid_input`: the arguments did not parse or match the tool's schema;
 * - `invalid_path`: the path can never name a file (a NUL byte, an unresolvable path);
 * - `path_outside_workspace`: the real path is outside the workspace;
 * - `not_found`: nothing exists at the path;
 * - `is_a_directory` / `not_a_directory`: the path names the wrong kind of entry;
 * - `not_a_file`: neither a regular file nor a directory (a FIFO, a socket, a device);
 * - `cancelled`: the context's signal aborted the tool;
 * - `io_error`: any other file-system failure (permissions, I/O), with its errno code.
 */
export type ToolErrorCode =
  | 'invalid_input'
  | 'invalid_path'
  | 'path_outside_workspace'
  | 'not_found'
  | 'is_a_directory'
  | 'not_a_directory'
  | 'not_a_file'
  | 'cancelled'
  | 'io_error';

/** The outcome of one tool call. Expected failures are results, never throws. */
export interface ToolResult {
  status: 'succeeded' | 'failed';
  /** One line for people, e.g. `read 120 lines of src/a.ts (3.2 KiB)`. */
  summary: string;
  /** What the model sees; each tool bounds its size. */
  content: string;
  /** Present when `status` is `failed`. */
  error?: { code: ToolErrorCode; message: string };
  /** Structured facts (sha256, bytes, entries, truncated…) for the store and the UI. */
  data?: Record<string, unknown>;
}

/** A tool the model can call. `I` is the validated input type. */
export interface ToolDefinition<I> {
  /** The name the model calls, fixed by PROTOCOL.md section 10. */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  /** Strict schema of the input: unknown keys are rejected. */
  input: z.ZodType<I>;
  /** JSON schema of `input` sent to the model (from `z.toJSONSchema`, without `$schema`). */
  parameters: Record<string, unknown>;
  /** True when the tool never changes anything. */
  readOnly: boolean;
  /** Runs the tool on validated input; resolves with a failed result for expected failures. */
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
}
