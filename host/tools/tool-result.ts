/**
 * Failed tool results: the shapes shared by every tool.
 */
import { errnoCode } from './errno.js';
import type { ToolErrorCode, ToolResult } from './types.js';

/** A failed result whose summary and model-facing content are both `message`. */
export function failedResult(code: ToolErrorCode, message: string): ToolResult {
  return { status: 'failed', summary: message, content: message, error: { code, message } };
}

/**
 * Turns a file-system error met at `relative` into a failed result. Anything that is not a
 * system error is a bug, not an expected failure, and is thrown again.
 */
export function fileSystemFailure(error: unknown, relative: string): ToolResult {
  const code = errnoCode(error);
  switch (code) {
    case undefined:
      throw error;
    case 'ENOENT':
    case 'ENOTDIR':
      return failedResult('not_found', `not found: ${relative}`);
    case 'EISDIR':
      return failedResult('is_a_directory', `${relative} is a directory`);
    case 'ELOOP':
      // The path was resolved before opening; a symlink here means it changed meanwhile.
      return failedResult('invalid_path', `${relative} changed into a symlink while opening it`);
    default:
      return failedResult('io_error', `cannot access ${relative}: ${code}`);
  }
}
