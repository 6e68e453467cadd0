/**
 * The result of a finished command: a headline (`exit 0 in 1.2 s, 3.4 KiB of output`), the
 * head and tail of its output for the model, and the same facts as data.
 */
import { constants } from 'node:os';
import { formatBytes } from './format-bytes.js';
import type { CapturedOutput } from './output-capture.js';
import type { ToolResult } from './types.js';

/** Everything known about a command once its group is stopped and its output flushed. */
export interface CommandOutcome {
  command: string;
  /** The working directory, relative to the workspace. */
  cwd: string;
  exit: { code: number | null; signal: string | null; durationMs: number };
  /** Why the host stopped it, when it did. */
  stoppedBy: 'timeout' | 'cancelled' | null;
  timeoutMs: number;
  /** Processes of its group were still running after it exited, and were stopped. */
  backgroundStopped: boolean;
  /** No process of its group can run any more. */
  groupGone: boolean;
  output: CapturedOutput;
  /** The sink's file, or null when the output was not kept. */
  outputPath: string | null;
  /**
   * Where it ran: `sandboxed` (bwrap or seatbelt), or `unsandboxed` (no sandbox on this
   * machine; a person approved it with full access).
   */
  sandbox: 'bwrap' | 'seatbelt' | 'unsandboxed';
  /**
   * Protected paths (secrets, `.git` hooks and config) the command created, changed or
   * removed where the sandbox could not refuse it, relative to the workspace.
   */
  protectedChanges: string[];
  /**
   * Of those, entries it added to a git folder by which git would follow the repository
   * elsewhere (`commondir`, `gitdir`, `config.worktree`): removed again after the call.
   */
  redirectsRemoved: string[];
  /**
   * The workspace had more entries than the walk for secrets looks at: its git folders
   * were seen first, but a secret past the cap was not hidden (an approved command only).
   */
  secretsUnchecked: boolean;
}

/** Builds the tool result of a command from its outcome. */
export function describeCommand(outcome: CommandOutcome): ToolResult {
  const { exit, output } = outcome;
  const truncated = output.fileBytes < output.totalBytes;
  const headline = headlineOf(outcome, truncated);
  const content = `${headline}\n${protectedNotice(outcome)}${excerptOf(outcome, truncated)}`;
  const summary = `${shortCommand(outcome.command)}: ${headline}`;
  const data = {
    command: outcome.command,
    cwd: outcome.cwd,
    exitCode: exit.code,
    signal: exit.signal,
    durationMs: exit.durationMs,
    timeoutMs: outcome.timeoutMs,
    timedOut: outcome.stoppedBy === 'timeout',
    cancelled: outcome.stoppedBy === 'cancelled',
    outputBytes: output.totalBytes,
    backgroundStopped: outcome.backgroundStopped,
    groupGone: outcome.groupGone,
    ...(outcome.outputPath === null
      ? {}
      : { fileBytes: output.fileBytes, sha256: output.sha256, truncated }),
    writeError: output.writeError,
    sandbox: outcome.sandbox,
    ...(outcome.protectedChanges.length === 0
      ? {}
      : { protectedChanges: outcome.protectedChanges }),
    ...(outcome.redirectsRemoved.length === 0
      ? {}
      : { redirectsRemoved: outcome.redirectsRemoved }),
  };
  const result: ToolResult = { status: 'succeeded', summary, content, data, exit };
  if (outcome.outputPath !== null) {
    result.outputFile = {
      path: outcome.outputPath,
      bytes: output.fileBytes,
      sha256: output.sha256,
      truncated,
    };
  }
  if (outcome.protectedChanges.length > 0) {
    const message = `${headline}; it changed protected paths: ${outcome.protectedChanges.join(', ')}`;
    return { ...result, status: 'failed', error: { code: 'protected_path_changed', message } };
  }
  const code =
    outcome.stoppedBy ?? (exit.code === 0 && exit.signal === null ? null : 'exit_nonzero');
  if (code === null) return result;
  return { ...result, status: 'failed', error: { code, message: headline } };
}

function headlineOf(outcome: CommandOutcome, truncated: boolean): string {
  const { exit, output } = outcome;
  const ran = formatDuration(exit.durationMs);
  let line: string;
  if (outcome.stoppedBy === 'timeout') {
    line = `timed out after ${ran} (limit ${formatDuration(outcome.timeoutMs)}) and was stopped`;
  } else if (outcome.stoppedBy === 'cancelled') {
    line = `cancelled after ${ran} and stopped`;
  } else if (exit.signal !== null) {
    line = `killed by ${exit.signal} after ${ran}`;
  } else {
    line = `exit ${exit.code} in ${ran}${sandboxSignal(outcome)}`;
  }
  line += output.totalBytes === 0 ? ', no output' : `, ${formatBytes(output.totalBytes)} of output`;
  if (truncated && outcome.outputPath !== null) {
    line += ` (the output file keeps the first ${formatBytes(output.fileBytes)})`;
  }
  if (outcome.protectedChanges.length > 0) {
    line += `; it changed ${outcome.protectedChanges.length} protected path(s)`;
  }
  if (outcome.secretsUnchecked) {
    line +=
      '; the workspace has more files than the sandbox checks for secrets, so secrets past them were not hidden';
  }
  if (outcome.backgroundStopped) line += '; background processes it left running were stopped';
  if (!outcome.groupGone) line += '; some of its processes could not be stopped';
  if (output.writeError !== null) line += `; writing the output file failed (${output.writeError})`;
  return line;
}

/**
 * The lines that tell the model (and whoever reads the run) which protected paths the
 * command changed: each one is for the user to look at, never something to build on.
 */
function protectedNotice(outcome: CommandOutcome): string {
  if (outcome.protectedChanges.length === 0) return '';
  const listed = outcome.protectedChanges
    .map((changed) =>
      outcome.redirectsRemoved.includes(changed)
        ? `  ${changed} (removed again: it would send git elsewhere)\n`
        : `  ${changed}\n`,
    )
    .join('');
  return (
    `WARNING: this command created, changed or removed protected paths (secrets, git hooks ` +
    `or config), which the user must review:\n${listed}`
  );
}

function excerptOf(outcome: CommandOutcome, truncated: boolean): string {
  const { head, tail, omittedBytes } = outcome.output.excerpt;
  if (omittedBytes === 0) return head;
  let kept = 'the full output is kept';
  if (outcome.outputPath === null) kept = 'the output was not kept';
  else if (truncated)
    kept = `the output file keeps the first ${formatBytes(outcome.output.fileBytes)}`;
  const newline = head.endsWith('\n') ? '' : '\n';
  return `${head}${newline}[… ${formatBytes(omittedBytes)} left out here; ${kept} …]\n${tail}`;
}

/**
 * bubblewrap reports a command killed by a signal as the status 128 + its number, which a
 * command could also exit with: both are said.
 */
function sandboxSignal(outcome: CommandOutcome): string {
  const code = outcome.exit.code;
  if (outcome.sandbox !== 'bwrap' || code === null || code <= 128) return '';
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return name === undefined ? '' : ` (killed by ${name}, or its own exit status ${code})`;
}

/** The command's first line, cut to 80 characters. */
function shortCommand(command: string): string {
  const trimmed = command.trim();
  const line = trimmed.split('\n', 1)[0] ?? '';
  if (line.length > 80) return `${line.slice(0, 79)}…`;
  return line === trimmed ? line : `${line} …`;
}

/** `45 ms`, `1.2 s`, `3 min 5 s`, `2 h 10 min`. */
function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return joinUnits(Math.floor(seconds / 60), 'min', seconds % 60, 's');
  const minutes = Math.round(seconds / 60);
  return joinUnits(Math.floor(minutes / 60), 'h', minutes % 60, 'min');
}

function joinUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
}
