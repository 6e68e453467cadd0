/**
 * `write_file {path, content, expectedSha256}`: replaces a file's whole content, or creates
 * it, only if its digest is the expected one; atomically, with the diff as an artifact.
 */
import { z } from 'zod';
import { Sha256Hex } from '../../protocol/index.js';
import { applyFileChange, FILE_WRITE_MAX_BYTES, previewFileChange } from './file-change.js';
import type { FileChange, WriteToolOptions } from './file-change.js';
import { formatBytes } from './format-bytes.js';
import { defineTool } from './tool-input.js';
import type { ToolDefinition } from './types.js';

const writeFileInput = z.strictObject({
  path: z.string().min(1).describe('The file: relative to the workspace, or absolute inside it.'),
  content: z
    .string()
    .max(FILE_WRITE_MAX_BYTES)
    .refine((text) => Buffer.byteLength(text) <= FILE_WRITE_MAX_BYTES, {
      error: `expected at most ${formatBytes(FILE_WRITE_MAX_BYTES)} of UTF-8`,
    })
    .describe('The whole new content of the file, as UTF-8 text.'),
  expectedSha256: z
    .nullable(Sha256Hex)
    .describe(
      'The sha256 read_file reported for the file as it is now, or null to create a file ' +
        'that must not exist yet.',
    ),
});

/** Validated input of `write_file`. */
export type WriteFileInput = z.infer<typeof writeFileInput>;

/** A `write_file` tool; `options` are for tests (see {@link WriteToolOptions}). */
export function createWriteFileTool(
  options: WriteToolOptions = {},
): ToolDefinition<WriteFileInput> {
  const change = (input: WriteFileInput): FileChange => ({
    tool: 'write_file',
    path: input.path,
    expectedSha256: input.expectedSha256,
    apply: () => Buffer.from(input.content, 'utf8'),
  });
  return defineTool<WriteFileInput>({
    name: 'write_file',
    description:
      `Create a file or replace its whole content (at most ${formatBytes(FILE_WRITE_MAX_BYTES)}). ` +
      `expectedSha256 must be the sha256 read_file gave for the file as it is now, or null ` +
      `when the file must not exist yet; if the file has changed since, nothing is written ` +
      `and the result is a conflict: read the file again. Missing parent folders are ` +
      `created. Prefer edit_file for small changes to an existing file.`,
    input: writeFileInput,
    access: (input) => ({ kind: 'write', path: input.path }),
    execute: (input, ctx) => applyFileChange(change(input), ctx, options),
    preview: (input, ctx) => previewFileChange(change(input), ctx),
  });
}

/** The `write_file` tool. */
export const writeFileTool = createWriteFileTool();
