/**
 * The failure vocabulary of the wire: why a model request failed (`model.retry.reason`),
 * why a run failed (`run.finished.error.code`), and why a tool call failed
 * (`tool.finished.error.code`). Hosts make codes only from these tables; remotes read
 * `code` as a string, so a newer host's new code still parses.
 */

/**
 * Why a model request failed; each is a run failure code too. `unsupported_input`: the
 * model does not take what the request holds (images), as its provider said or as Tether
 * knows of the model (host/model/provider-rules.ts); never retried.
 */
export const MODEL_FAILURE_CODES = [
  'timeout',
  'rate_limit',
  'refusal',
  'context_too_long',
  'bad_request',
  'auth',
  'server',
  'network',
  'bad_response',
  'unsupported_input',
] as const;
export type ModelFailureCode = (typeof MODEL_FAILURE_CODES)[number];

/**
 * `run.finished.error.code` of a failed run: a model failure, or
 * - `model_not_configured`: the host has no model;
 * - `budget_exhausted`: the run used its model turns;
 * - `wall_time_exceeded`: the run took longer than its wall-time budget;
 * - `context_too_large`: no context within the model's size could be built (this run alone
 *   is too large, or summarising the session's earlier runs failed); nothing was sent;
 * - `cancelled`: stopped before it could finish (a cancelled run ends `cancelled`);
 * - `agent_failed`: the run's ACP agent (docs/agents.md) could not start, refused the
 *   task or died mid-turn; the message says which, with its last stderr lines;
 * - `internal`: a broken invariant in the host, with its message.
 */
export const RUN_FAILURE_CODES = [
  ...MODEL_FAILURE_CODES,
  'model_not_configured',
  'budget_exhausted',
  'wall_time_exceeded',
  'context_too_large',
  'cancelled',
  'agent_failed',
  'internal',
] as const;
export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

/** A run's error as a host makes it (`RunError` is how a remote reads one). */
export type RunFailure = { code: RunFailureCode; message: string };

/**
 * `tool.finished.error.code` of a failed tool call:
 * - `invalid_input`: the arguments did not parse or match the tool's schema;
 * - `invalid_path`: the path can never name a file (a NUL byte, an unresolvable path);
 * - `path_outside_workspace`: the real path is outside the workspace;
 * - `not_found`: nothing exists at the path;
 * - `is_a_directory` / `not_a_directory`: the path names the wrong kind of entry;
 * - `not_a_file`: neither a regular file nor a directory (a FIFO, a socket, a device);
 * - `cancelled`: the run was stopped while the tool ran, or before it started;
 * - `io_error`: any other file-system failure (permissions, I/O), with its errno code;
 * - `conflict`: the file's digest is not the expected one (nothing was written);
 * - `no_match` / `ambiguous_match`: edit_file's `oldText` matched zero or several times;
 * - `timeout`: the command ran past its timeout and was stopped;
 * - `spawn_failed`: the command could not start;
 * - `exit_nonzero`: the command ended with a non-zero status or a signal;
 * - `permission_denied`: policy or the user refused the call, or the sandbox cannot run it
 *   unattended;
 * - `protected_path_changed`: the command ran, and created, changed or removed a protected
 *   path (a secret, a `.git` hook or config) the sandbox could not refuse
 *   (`data.protectedChanges` names them);
 * - `tool_error`: an MCP server's tool answered with `isError` (its text says why);
 * - `unavailable`: the MCP server of the tool is not connected: the call was not sent.
 *
 * @public the vocabulary as a list, for remotes and docs (the host uses only its type).
 */
export const TOOL_FAILURE_CODES = [
  'invalid_input',
  'invalid_path',
  'path_outside_workspace',
  'not_found',
  'is_a_directory',
  'not_a_directory',
  'not_a_file',
  'cancelled',
  'io_error',
  'conflict',
  'no_match',
  'ambiguous_match',
  'timeout',
  'spawn_failed',
  'exit_nonzero',
  'permission_denied',
  'protected_path_changed',
  'tool_error',
  'unavailable',
] as const;
export type ToolFailureCode = (typeof TOOL_FAILURE_CODES)[number];
