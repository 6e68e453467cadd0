/**
 * The steps write_file and edit_file share: resolve the path inside the workspace, read
 * the file as it is, check its digest, compute the new bytes, preview the diff, and write
 * atomically with the result the model and the store get.
 */
import { createHash } from 'node:crypto';
import type { ApprovalPreview } from '../../protocol/index.js';
import { writeFileAtomically } from './atomic-write.js';
import type { AtomicWriteOutcome } from './atomic-write.js';
import { digestConflict, isUnchanged, readCurrentFile } from './current-file.js';
import type { CurrentFile } from './current-file.js';
import { formatBytes } from './format-bytes.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import type { ToolContext, ToolPreviewContext, ToolResult } from './types.js';
import { capDiff, unifiedDiff } from './unified-diff.js';
import type { UnifiedDiff } from './unified-diff.js';
import { resolveToolPath, resolveWorkspacePath } from './workspace-path.js';

/** Most bytes a file may have after a write, and most bytes of a file edit_file reads. */
export const FILE_WRITE_MAX_BYTES = 10 * 1024 * 1024;
/** Most bytes of the diff an approval preview shows; the result's artifact is whole. */
export const PREVIEW_DIFF_MAX_BYTES = 200 * 1024;

/** Options of the write tools' factories. */
export interface WriteToolOptions {
  /**
   * For tests only: runs once the temporary file is written and fsynced, right before it
   * replaces the target, with the temporary file's path. Throwing stands for a crash at
   * that point: nothing is renamed, the temporary file is removed, the error is rethrown.
   */
  beforeRename?: (tempPath: string) => void | Promise<void>;
}

/** One write as the shared steps see it. */
export interface FileChange {
  tool: 'write_file' | 'edit_file';
  /** As the model gave it. */
  path: string;
  /** The digest the file must have: null for "must not exist", undefined for no check. */
  expectedSha256: string | null | undefined;
  /** The new bytes given the file as it is now, or the failed result explaining why not. */
  apply(current: CurrentFile, where: string): Buffer | ToolResult;
}

/** What a write would do if run now (docs/protocol.md §6.4, `preview` of kind `write`). */
export async function previewFileChange(
  change: FileChange,
  ctx: ToolPreviewContext,
): Promise<ApprovalPreview> {
  const resolved =
    ctx.outsideAccess?.kind === 'write'
      ? await resolveToolPath(ctx, change.path)
      : await resolveWorkspacePath(ctx.workspace, change.path);
  if (!resolved.ok) {
    if (resolved.code === 'path_outside_workspace') {
      return { kind: 'path', path: resolved.path, access: 'write' };
    }
    return failurePreview(change, change.path, change.path, { exists: false }, resolved.reason);
  }
  const where = resolved.relative;
  const planned = await plan(change, resolved.path, where, ctx.signal);
  if (!planned.ok) {
    const current = planned.current ?? { exists: false };
    return failurePreview(change, where, resolved.path, current, planned.failure.summary);
  }
  return {
    kind: 'write',
    path: where,
    realPath: resolved.path,
    diff: capDiff(planned.diff.text, PREVIEW_DIFF_MAX_BYTES),
    baseSha256: planned.current.exists ? planned.current.sha256 : null,
    newSha256: sha256(planned.next),
  };
}

/** Runs a write: every expected failure is a failed result, and then nothing is written. */
export async function applyFileChange(
  change: FileChange,
  ctx: ToolContext,
  options: WriteToolOptions,
): Promise<ToolResult> {
  const resolved =
    ctx.outsideAccess?.kind === 'write'
      ? await resolveToolPath(ctx, change.path)
      : await resolveWorkspacePath(ctx.workspace, change.path);
  if (!resolved.ok) return failedResult(resolved.code, resolved.reason);
  const where = resolved.relative;
  // Without a digest of its own, the write must still find the file the user approved.
  const checked =
    change.expectedSha256 === undefined && ctx.approvedBaseSha256 !== undefined
      ? { ...change, expectedSha256: ctx.approvedBaseSha256 }
      : change;
  const planned = await plan(checked, resolved.path, where, ctx.signal);
  if (!planned.ok) return planned.failure;
  const { current, next, diff } = planned;
  let outcome: AtomicWriteOutcome;
  try {
    outcome = await writeFileAtomically(resolved.path, next, {
      mode: current.exists ? current.mode : 0o644,
      createOnly: !current.exists,
      signal: ctx.signal,
      async check(tempPath) {
        await options.beforeRename?.(tempPath);
        // The digest was checked on the bytes read; this catches a writer since then.
        return isUnchanged(resolved.path, current);
      },
    });
  } catch (error) {
    return fileSystemFailure(error, where);
  }
  switch (outcome) {
    case 'conflict':
      return changedWhileWriting(resolved.path, where, current, ctx.signal);
    case 'cancelled':
      return failedResult('cancelled', `writing ${where} was cancelled; nothing was written`);
    case 'folder_changed':
      return failedResult(
        'invalid_path',
        `the folder of ${where} changed into another path while writing; nothing was written`,
      );
    case 'written':
      return writtenResult(change, where, current, next, diff);
  }
}

type Plan =
  | { ok: true; current: CurrentFile; next: Buffer; diff: UnifiedDiff }
  | { ok: false; failure: ToolResult; current?: CurrentFile };

async function plan(
  change: FileChange,
  file: string,
  where: string,
  signal: AbortSignal,
): Promise<Plan> {
  if (signal.aborted) {
    return { ok: false, failure: failedResult('cancelled', `writing ${where} was cancelled`) };
  }
  const current = await readCurrentFile(file, where, FILE_WRITE_MAX_BYTES, signal);
  if ('status' in current) return { ok: false, failure: current };
  if (change.expectedSha256 !== undefined) {
    const conflict = digestConflict(where, change.expectedSha256, current);
    if (conflict !== null) return { ok: false, failure: conflict, current };
  }
  const next = change.apply(current, where);
  if (!Buffer.isBuffer(next)) return { ok: false, failure: next, current };
  if (next.length > FILE_WRITE_MAX_BYTES) {
    const message =
      `the new ${where} would have ${formatBytes(next.length)}, more than the ` +
      `${formatBytes(FILE_WRITE_MAX_BYTES)} a write may make; nothing was written`;
    return { ok: false, failure: failedResult('invalid_input', message), current };
  }
  return { ok: true, current, next, diff: diffOf(current, next, where) };
}

function diffOf(current: CurrentFile, next: Buffer, where: string): UnifiedDiff {
  if (!current.exists) return unifiedDiff(null, next, where);
  if (current.content !== null) return unifiedDiff(current.content, next, where);
  const note =
    `--- a/${where}\n+++ b/${where}\n` +
    `[the current file (${formatBytes(current.bytes)}) is too large to diff; it is replaced ` +
    `whole by ${formatBytes(next.length)}]\n`;
  return { text: note, added: 0, removed: 0, binary: false };
}

/** A preview of a call that would fail now: the diff says why, and nothing would change. */
function failurePreview(
  change: FileChange,
  where: string,
  realPath: string,
  current: CurrentFile,
  reason: string,
): ApprovalPreview {
  const base = current.exists ? current.sha256 : null;
  return {
    kind: 'write',
    path: where,
    realPath,
    diff: `[${change.tool} would fail if run now: ${reason}]\n`,
    baseSha256: base,
    newSha256: base ?? sha256(Buffer.alloc(0)),
  };
}

async function changedWhileWriting(
  file: string,
  where: string,
  before: CurrentFile,
  signal: AbortSignal,
): Promise<ToolResult> {
  const now = await readCurrentFile(file, where, 0, signal);
  const base = before.exists ? before.sha256 : null;
  const currentSha256 = 'status' in now || !now.exists ? null : now.sha256;
  const message =
    `conflict: ${where} changed while it was being written (sha256 now ` +
    `${currentSha256 ?? 'none: the file is gone'}); nothing was written, read it again`;
  return {
    ...failedResult('conflict', message),
    data: { path: where, expectedSha256: base, currentSha256 },
  };
}

function writtenResult(
  change: FileChange,
  where: string,
  current: CurrentFile,
  next: Buffer,
  diff: UnifiedDiff,
): ToolResult {
  const afterSha256 = sha256(next);
  const verb = !current.exists ? 'created' : change.tool === 'edit_file' ? 'edited' : 'wrote';
  let stat = `+${diff.added} -${diff.removed} lines`;
  if (diff.binary) stat = 'binary content';
  else if (diff.text === '') stat = 'no changes';
  else if (!current.exists) stat = `new file, +${diff.added} lines`;
  return {
    status: 'succeeded',
    summary: `${verb} ${where} (${stat}, ${formatBytes(next.length)})`,
    content: `wrote ${next.length} bytes to ${where} (sha256 ${afterSha256}): ${stat}`,
    data: {
      path: where,
      beforeSha256: current.exists ? current.sha256 : null,
      afterSha256,
      bytes: next.length,
      linesAdded: diff.added,
      linesRemoved: diff.removed,
    },
    ...(diff.text === '' ? {} : { artifacts: changeArtifacts(where, current, diff) }),
  };
}

/**
 * The diff, and the approved baseline: the text the file held before, so the change can be
 * undone (the digests are in the result's data). A binary baseline is not kept as text.
 */
function changeArtifacts(
  where: string,
  current: CurrentFile,
  diff: UnifiedDiff,
): { kind: string; name: string; content: string }[] {
  const artifacts = [{ kind: 'diff', name: `${where}.diff`, content: diff.text }];
  if (current.exists && current.content !== null && !diff.binary) {
    artifacts.push({
      kind: 'baseline',
      name: `${where}.before`,
      content: current.content.toString('utf8'),
    });
  }
  return artifacts;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
