/**
 * What a run changed (docs/protocol.md §6.2 `run.changes`), from its tool calls' stored
 * results and diff artifacts: the files its writes touched and the commands it started.
 */
import { z } from 'zod';
import {
  CHANGES_INLINE_DIFF_BYTES,
  CHANGES_INLINE_TOTAL_BYTES,
  type ChangedFile,
  type CommandRun,
  type FileWrite,
  type RunChanges,
} from '../../protocol/index.js';
import { readFilePage, type StoredArtifact, type StoredToolCall } from '../store/index.js';

const WRITE_TOOLS = new Set(['write_file', 'edit_file']);

const Sha = z.string().regex(/^[0-9a-f]{64}$/);
const Lines = z.number().int().nonnegative();
/** The `data` of a write's result (host/tools/file-change.ts, `writtenResult`). */
const WriteData = z.looseObject({
  path: z.string(),
  beforeSha256: Sha.nullable(),
  afterSha256: Sha,
  linesAdded: Lines,
  linesRemoved: Lines,
});
const PathInput = z.looseObject({ path: z.string() });
const CommandInput = z.looseObject({ command: z.string(), cwd: z.string().optional() });
/** The facts of a finished call's result (host/runtime/tool-step.ts). */
const CommandResult = z.looseObject({
  summary: z.string().optional().catch(undefined),
  exitCode: z.number().int().nullable().optional().catch(undefined),
  signal: z.string().nullable().optional().catch(undefined),
  durationMs: z.number().nonnegative().optional().catch(undefined),
  error: z.looseObject({ code: z.string() }).optional().catch(undefined),
  reconciled: z.looseObject({ outcome: z.string() }).optional().catch(undefined),
});

/**
 * Files in the order the run first wrote them, each with its writes oldest first; then the
 * commands that started, in order. A write or command that never started (denied, invalid)
 * changed nothing and is left out; one that failed after starting wrote nothing (a write's
 * failure always leaves the file as it was) and is left out of the files too.
 */
export function runChanges(
  runId: string,
  calls: readonly StoredToolCall[],
  artifacts: readonly StoredArtifact[],
): RunChanges {
  const budget = { left: CHANGES_INLINE_TOTAL_BYTES };
  const files = new Map<string, ChangedFile>();
  const commands: CommandRun[] = [];
  const ordered = [...calls].sort(
    (a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity) || a.position - b.position,
  );
  for (const call of ordered) {
    if (call.startedAt === null) continue;
    if (call.name === 'run_command') {
      commands.push(commandRun(call));
      continue;
    }
    if (!WRITE_TOOLS.has(call.name)) continue;
    const write = fileWrite(call, artifacts, budget);
    if (write === undefined) continue;
    const file = files.get(write.path) ?? { path: write.path, writes: [] };
    file.writes.push(write.entry);
    files.set(write.path, file);
  }
  return { runId, files: [...files.values()], commands };
}

function fileWrite(
  call: StoredToolCall,
  artifacts: readonly StoredArtifact[],
  budget: { left: number },
): { path: string; entry: FileWrite } | undefined {
  const base = {
    toolCallId: call.id,
    tool: call.name,
    state: call.state,
    finishedAt: call.finishedAt,
  };
  if (call.state === 'succeeded') {
    const data = WriteData.safeParse(call.result?.['data']);
    if (!data.success) return undefined;
    const { path, beforeSha256, afterSha256, linesAdded, linesRemoved } = data.data;
    const action =
      beforeSha256 === null ? 'created' : call.name === 'edit_file' ? 'edited' : 'overwritten';
    const artifact = artifacts.find((a) => a.toolCallId === call.id && a.kind === 'diff');
    return {
      path,
      entry: {
        ...base,
        action,
        beforeSha256,
        afterSha256,
        linesAdded,
        linesRemoved,
        diff: artifact === undefined ? null : diffOf(artifact, budget),
      },
    };
  }
  // Running, or lost in a crash: it may have written. Failed and cancelled ones did not.
  if (call.state !== 'running' && call.state !== 'unknown') return undefined;
  const input = PathInput.safeParse(call.input);
  if (!input.success) return undefined;
  return { path: input.data.path, entry: { ...base, action: 'unknown', diff: null } };
}

function diffOf(artifact: StoredArtifact, budget: { left: number }): FileWrite['diff'] {
  const reference = { artifactId: artifact.id, bytes: artifact.bytes };
  if (artifact.bytes > CHANGES_INLINE_DIFF_BYTES || artifact.bytes > budget.left) return reference;
  const file = {
    path: artifact.path,
    bytes: artifact.bytes,
    sha256: artifact.sha256,
    truncated: false,
  };
  let page;
  try {
    page = readFilePage(file, 0, artifact.bytes);
  } catch {
    // The file went missing under the store: the reader will say so when asked.
    return reference;
  }
  budget.left -= artifact.bytes;
  return { ...reference, text: page.text };
}

function commandRun(call: StoredToolCall): CommandRun {
  const input = CommandInput.safeParse(call.input);
  const result = CommandResult.safeParse(call.result ?? {});
  const facts = result.success ? result.data : {};
  return {
    toolCallId: call.id,
    command: input.success ? input.data.command : '',
    cwd: input.success ? (input.data.cwd ?? null) : null,
    state: call.state,
    exitCode: facts.exitCode ?? null,
    signal: facts.signal ?? null,
    summary: facts.summary ?? null,
    errorCode: facts.error?.code ?? null,
    durationMs: facts.durationMs ?? null,
    output:
      call.output === null ? null : { bytes: call.output.bytes, truncated: call.output.truncated },
    reconciled: facts.reconciled ?? null,
    startedAt: call.startedAt,
    finishedAt: call.finishedAt,
  };
}
