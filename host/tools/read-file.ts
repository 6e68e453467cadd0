/**
 * `read_file {path, offset?, limit?}`: a range of a text file's lines, bounded in lines and
 * bytes, with the SHA-256, size and line count of the whole file.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { scanFile } from './file-scan.js';
import type { FileScan } from './file-scan.js';
import { formatBytes } from './format-bytes.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { ToolResult } from './types.js';
import { resolveToolPath } from './workspace-path.js';

/** Lines returned when the input has no `limit`. */
const READ_FILE_DEFAULT_LIMIT = 2000;
/** Most bytes of file content one read returns. */
export const READ_FILE_MAX_BYTES = 256 * 1024;

const readFileInput = z.strictObject({
  path: z.string().min(1).describe('The file: relative to the workspace, or absolute inside it.'),
  offset: z.int().min(1).optional().describe('First line to return, counting from 1 (default 1).'),
  limit: z
    .int()
    .min(1)
    .optional()
    .describe(`Most lines to return (default ${READ_FILE_DEFAULT_LIMIT}).`),
});

/** Validated input of `read_file`. */
export type ReadFileInput = z.infer<typeof readFileInput>;

/** The `read_file` tool. */
export const readFileTool = defineTool<ReadFileInput>({
  name: 'read_file',
  description:
    `Read a text file in the workspace. Returns lines offset..offset+limit-1 as plain text ` +
    `(at most ${READ_FILE_DEFAULT_LIMIT} lines and ${formatBytes(READ_FILE_MAX_BYTES)} per ` +
    `call) after a header line giving the range, the file's total lines and bytes, its ` +
    `sha256 (use it as expectedSha256 when writing), and the offset to continue from when ` +
    `the output was cut. Binary files are reported, not shown.`,
  input: readFileInput,
  access: (input) => ({ kind: 'read', path: input.path }),
  async execute(input, ctx) {
    const resolved = await resolveToolPath(ctx, input.path, 'read');
    if (!resolved.ok) return failedResult(resolved.code, resolved.reason);
    const where = resolved.relative;
    let handle: FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOFOLLOW: the path was
      // resolved, so a symlink here was swapped in since and is not followed.
      const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
      handle = await open(resolved.path, flags);
    } catch (error) {
      return fileSystemFailure(error, where);
    }
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) {
        return failedResult('is_a_directory', `${where} is a directory; use list_directory`);
      }
      if (!stats.isFile()) return failedResult('not_a_file', `${where} is not a regular file`);
      const first = input.offset ?? 1;
      const last = first + (input.limit ?? READ_FILE_DEFAULT_LIMIT) - 1;
      const scan = await scanFile(handle, { first, last }, READ_FILE_MAX_BYTES, ctx.signal);
      return describeRead(where, first, scan);
    } catch (error) {
      if (ctx.signal.aborted) return failedResult('cancelled', `reading ${where} was cancelled`);
      return fileSystemFailure(error, where);
    } finally {
      await handle.close();
    }
  },
});

function describeRead(where: string, first: number, scan: FileScan): ToolResult {
  const whole = `${scan.bytes} bytes, sha256 ${scan.sha256}`;
  const facts = { path: where, sha256: scan.sha256, bytes: scan.bytes, binary: scan.binary };
  if (scan.binary) {
    return {
      status: 'succeeded',
      summary: `${where} is binary (${formatBytes(scan.bytes)})`,
      content: `${where}: binary file, ${whole}`,
      data: facts,
    };
  }
  // A cut range ends at its last newline; only a first line longer than the cap is split.
  const lastNewline = scan.cut ? scan.kept.lastIndexOf(0x0a) : -1;
  const text = (lastNewline === -1 ? scan.kept : scan.kept.subarray(0, lastNewline + 1)).toString(
    'utf8',
  );
  const partialLine = scan.cut && lastNewline === -1;
  const returned = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const end = first + returned - 1;
  const nextOffset = end < scan.lines ? end + 1 : null;
  const data = {
    ...facts,
    lines: scan.lines,
    startLine: first,
    endLine: end,
    returnedBytes: Buffer.byteLength(text),
    truncated: scan.cut,
    nextOffset,
  };

  if (scan.bytes === 0) {
    return {
      status: 'succeeded',
      summary: `${where} is empty`,
      content: `${where}: empty file, ${whole}`,
      data,
    };
  }
  if (returned === 0) {
    return {
      status: 'succeeded',
      summary: `nothing to read from line ${first} of ${where} (${scan.lines} lines)`,
      content: `${where}: offset ${first} is past the end of the file (${scan.lines} lines, ${whole})`,
      data,
    };
  }
  const range = partialLine
    ? `the first ${data.returnedBytes} bytes of line ${first}`
    : `lines ${first}-${end}`;
  let header = `${where}: ${range} of ${scan.lines} lines, ${whole}`;
  if (scan.cut) header += `; cut at the ${formatBytes(READ_FILE_MAX_BYTES)} cap`;
  else if (nextOffset !== null) header += `; ${scan.lines - end} more lines`;
  if (nextOffset !== null) header += `, continue with offset ${nextOffset}`;
  let summary = `read lines ${first}-${end} of ${scan.lines} from ${where}`;
  if (partialLine) summary = `read part of line ${first} of ${where}`;
  else if (first === 1 && nextOffset === null) summary = `read ${returned} lines of ${where}`;
  summary += ` (${formatBytes(data.returnedBytes)})`;
  return { status: 'succeeded', summary, content: `${header}\n${text}`, data };
}
