/**
 * What a run changed (docs/protocol.md §6.2 `run.changes`), from its tool calls' stored
 * results and diff artifacts: the files its writes touched and the commands it started.
 */
import { z } from 'zod';
import {
  CHANGES_ANSWER_BYTES,
  CHANGES_COMMAND_CHARS,
  CHANGES_INLINE_DIFF_BYTES,
  CHANGES_INLINE_TOTAL_BYTES,
  type ChangedFile,
  type CommandRun,
  type FileWrite,
  type RunChanges,
} from '../../protocol/index.js';
import { readFilePage, type StoredArtifact, type StoredToolCall } from '../store/index.js';
import type { ToolAccess } from '../tools/index.js';

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
  data: z
    .looseObject({ protectedChanges: z.array(z.string()).optional().catch(undefined) })
    .optional()
    .catch(undefined),
});

/**
 * Files in the order the run first wrote them, each with its writes oldest first; then the
 * commands that started, in order. A write or command that never started (denied, invalid)
 * changed nothing and is left out; one that failed after starting wrote nothing (a write's
 * failure always leaves the file as it was) and is left out of the files too. Entries past
 * what one answer holds are counted in `omitted` instead (each entry is measured as JSON).
 */
export function runChanges(
  runId: string,
  calls: readonly StoredToolCall[],
  artifacts: readonly StoredArtifact[],
  accessOf: (call: StoredToolCall) => ToolAccess['kind'] | undefined,
): RunChanges {
  const inline = { left: CHANGES_INLINE_TOTAL_BYTES };
  let room = CHANGES_ANSWER_BYTES - 1024;
  const omitted = { writes: 0, commands: 0 };
  const fits = (entry: object) => {
    const bytes = Buffer.byteLength(JSON.stringify(entry));
    if (bytes > room) return false;
    room -= bytes;
    return true;
  };
  const files = new Map<string, ChangedFile>();
  const commands: CommandRun[] = [];
  const ordered = [...calls].sort(
    (a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity) || a.position - b.position,
  );
  for (const call of ordered) {
    if (call.startedAt === null) continue;
    const access = accessOf(call);
    if (access === 'command') {
      const command = commandRun(call);
      if (fits(command)) commands.push(command);
      else omitted.commands += 1;
      continue;
    }
    if (access !== 'write') continue;
    const write = fileWrite(call, artifacts, inline);
    if (write === undefined) continue;
    const file = files.get(write.path);
    if (!fits(file === undefined ? { path: write.path, writes: [write.entry] } : write.entry)) {
      omitted.writes += 1;
      continue;
    }
    if (file === undefined) files.set(write.path, { path: write.path, writes: [write.entry] });
    else file.writes.push(write.entry);
  }
  return {
    runId,
    files: [...files.values()],
    commands,
    ...(omitted.writes + omitted.commands > 0 ? { omitted } : {}),
  };
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
  // Measured as sent: JSON writes a control character as six bytes.
  const sent = Buffer.byteLength(JSON.stringify(page.text));
  if (sent > budget.left) return reference;
  budget.left -= sent;
  return { ...reference, text: page.text };
}

function commandRun(call: StoredToolCall): CommandRun {
  const input = CommandInput.safeParse(call.input);
  const result = CommandResult.safeParse(call.result ?? {});
  const facts = result.success ? result.data : {};
  const command = input.success ? input.data.command : '';
  // Never between the halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(command.charAt(CHANGES_COMMAND_CHARS - 1))
    ? CHANGES_COMMAND_CHARS - 1
    : CHANGES_COMMAND_CHARS;
  const cut = Math.max(0, command.length - end);
  return {
    toolCallId: call.id,
    command: cut === 0 ? command : command.slice(0, end),
    ...(cut === 0 ? {} : { commandCut: cut }),
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
    ...(facts.data?.protectedChanges === undefined
      ? {}
      : { protectedChanges: facts.data.protectedChanges }),
    startedAt: call.startedAt,
    finishedAt: call.finishedAt,
  };
}
