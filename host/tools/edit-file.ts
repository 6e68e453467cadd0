/**
 * `edit_file {path, oldText, newText, expectedSha256?}`: replaces the one place where
 * `oldText` occurs in a file with `newText`, atomically, with the diff as an artifact.
 */
import { z } from 'zod';
import { Sha256Hex } from '../../protocol/index.js';
import { applyFileChange, FILE_WRITE_MAX_BYTES, previewFileChange } from './file-change.js';
import type { FileChange, WriteToolOptions } from './file-change.js';
import { formatBytes } from './format-bytes.js';
import { failedResult } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { ToolDefinition, ToolResult } from './types.js';

const editFileInput = z.strictObject({
  path: z.string().min(1).describe('The file: relative to the workspace, or absolute inside it.'),
  oldText: z
    .string()
    .min(1)
    .describe(
      'Text that occurs exactly once in the file, copied exactly (whitespace and line ' +
        'endings included).',
    ),
  newText: z.string().describe('The text that replaces oldText (empty to delete it).'),
  expectedSha256: z
    .optional(Sha256Hex)
    .describe(
      'The sha256 read_file gave for the file; when set, the edit is made only if the file ' +
        'still has it.',
    ),
});

/** Validated input of `edit_file`. */
export type EditFileInput = z.infer<typeof editFileInput>;

/** An `edit_file` tool; `options` are for tests (see {@link WriteToolOptions}). */
export function createEditFileTool(options: WriteToolOptions = {}): ToolDefinition<EditFileInput> {
  const change = (input: EditFileInput): FileChange => ({
    tool: 'edit_file',
    path: input.path,
    expectedSha256: input.expectedSha256,
    apply: (current, where) => {
      if (!current.exists) {
        return failedResult(
          'not_found',
          `not found: ${where}; create it with write_file and expectedSha256 null`,
        );
      }
      if (current.content === null) {
        return failedResult(
          'invalid_input',
          `${where} has ${formatBytes(current.bytes)}, more than the ` +
            `${formatBytes(FILE_WRITE_MAX_BYTES)} edit_file works on`,
        );
      }
      return replaceOnce(current.content, input, where);
    },
  });
  return defineTool<EditFileInput>({
    name: 'edit_file',
    description:
      `Edit a text file by replacing oldText, which must occur exactly once in it, with ` +
      `newText. Copy oldText exactly from read_file's output and include enough ` +
      `surrounding lines to make it unique. Give expectedSha256 (from read_file) to be sure ` +
      `the file has not changed since you read it. The result gives the file's new sha256.`,
    input: editFileInput,
    access: (input) => ({ kind: 'write', path: input.path }),
    execute: (input, ctx) => applyFileChange(change(input), ctx, options),
    preview: (input, ctx) => previewFileChange(change(input), ctx),
  });
}

/** The `edit_file` tool. */
export const editFileTool = createEditFileTool();

function replaceOnce(content: Buffer, input: EditFileInput, where: string): Buffer | ToolResult {
  const old = Buffer.from(input.oldText, 'utf8');
  const first = content.indexOf(old);
  // Overlapping occurrences count: each is a different place the edit could go.
  let matches = 0;
  for (let at = first; at !== -1; at = content.indexOf(old, at + 1)) matches += 1;
  if (matches === 1) {
    return Buffer.concat([
      content.subarray(0, first),
      Buffer.from(input.newText, 'utf8'),
      content.subarray(first + old.length),
    ]);
  }
  if (matches === 0) {
    const crlf =
      content.includes('\r\n') && !input.oldText.includes('\r\n') && input.oldText.includes('\n')
        ? ' (the file has CRLF line endings)'
        : '';
    const message =
      `oldText matches 0 times in ${where}${crlf}; it must match the file's text exactly, ` +
      `whitespace and line endings included: read the file again`;
    return { ...failedResult('no_match', message), data: { path: where, matches } };
  }
  const message =
    `oldText matches ${matches} times in ${where}; it must match exactly once: include more ` +
    `surrounding lines to make it unique`;
  return { ...failedResult('ambiguous_match', message), data: { path: where, matches } };
}
