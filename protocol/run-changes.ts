/**
 * What a run changed (docs/protocol.md §6.2 `run.changes`): each file its writes touched,
 * with every call that wrote it in order and its diff, and every command it started with
 * how it ended.
 */
import { z } from 'zod/mini';
import { Millis, OpaqueId, Sha256Hex } from './primitives.js';
import { ToolCallState } from './states.js';

/** Most bytes of one diff carried inline; a longer one is read with `artifact.read`. */
export const CHANGES_INLINE_DIFF_BYTES = 64 * 1024;
/** Most bytes of diffs one `run.changes` answer carries inline (as JSON), all files together. */
export const CHANGES_INLINE_TOTAL_BYTES = 512 * 1024;
/** Most characters of a command `run.changes` carries; the tool call has it whole. */
export const CHANGES_COMMAND_CHARS = 2000;
/** Most bytes of JSON one `run.changes` answer holds, below the 1 MiB frame. */
export const CHANGES_ANSWER_BYTES = 900 * 1024;

/**
 * The diff artifact of one write: its id and size, and its text when it fits inline
 * (else `text` is absent and `artifact.read` pages it).
 */
const Count = z.int().check(z.nonnegative());

const ChangeDiff = z.looseObject({
  artifactId: OpaqueId,
  bytes: Count,
  text: z.optional(z.string()),
});

/**
 * One write_file or edit_file call on a file. `action` is what it did: `created` (no file
 * before), `edited` (edit_file), `overwritten` (write_file over a file), or `unknown` while
 * it runs or when the host lost track of it (state `unknown`: it may or may not have
 * written). The digests are of the file's bytes: `beforeSha256` null when it did not
 * exist; both absent when not known.
 */
export const FileWrite = z.looseObject({
  toolCallId: OpaqueId,
  tool: z.string(),
  state: ToolCallState,
  action: z.enum(['created', 'edited', 'overwritten', 'unknown']),
  beforeSha256: z.optional(z.nullable(Sha256Hex)),
  afterSha256: z.optional(Sha256Hex),
  linesAdded: z.optional(Count),
  linesRemoved: z.optional(Count),
  /** Null when the write changed no byte (or its diff is not known). */
  diff: z.nullable(ChangeDiff),
  finishedAt: z.nullable(Millis),
});
export type FileWrite = z.infer<typeof FileWrite>;

/** A file and the calls that wrote it, oldest first. */
export const ChangedFile = z.looseObject({
  path: z.string(),
  writes: z.array(FileWrite),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/**
 * One run_command the run started. `state` is the call's; `exitCode` and `signal` are null
 * when it has none (killed, never ended, unknown). `output` says whether its output can be
 * read with `output.read`. `reconciled` is the user's verdict on an `unknown` one.
 */
export const CommandRun = z.looseObject({
  toolCallId: OpaqueId,
  command: z.string(),
  /** Characters cut off the end of `command` (absent when it is whole). */
  commandCut: z.optional(Count),
  /** As the model gave it (relative to the workspace); null for the workspace itself. */
  cwd: z.nullable(z.string()),
  state: ToolCallState,
  exitCode: z.nullable(z.int()),
  signal: z.nullable(z.string()),
  summary: z.nullable(z.string()),
  errorCode: z.nullable(z.string()),
  durationMs: z.nullable(z.number().check(z.nonnegative())),
  output: z.nullable(z.looseObject({ bytes: Count, truncated: z.boolean() })),
  reconciled: z.nullable(z.looseObject({ outcome: z.string() })),
  /**
   * Protected paths (secrets, `.git` hooks and config) the command created, changed or
   * removed where its sandbox could not refuse it, relative to the workspace; absent when
   * none (and from hosts before the sandbox).
   */
  protectedChanges: z.optional(z.array(z.string())),
  startedAt: z.nullable(Millis),
  finishedAt: z.nullable(Millis),
});
export type CommandRun = z.infer<typeof CommandRun>;

/**
 * `omitted` counts the writes and commands left out, oldest kept, when listing them all
 * would not fit one answer (thousands of calls): the run's tool calls still have them.
 */
export const RunChanges = z.looseObject({
  runId: OpaqueId,
  files: z.array(ChangedFile),
  commands: z.array(CommandRun),
  omitted: z.optional(z.looseObject({ writes: Count, commands: Count })),
});
export type RunChanges = z.infer<typeof RunChanges>;
