/**
 * The tools the model can be offered, by name.
 */
import type { Sandbox } from '../sandbox/index.js';
import { editFileTool } from './edit-file.js';
import { createFindFilesTool } from './find-files.js';
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import { createRunCommandTool } from './run-command.js';
import { createSearchFilesTool } from './search-files.js';
import type { SearchToolOptions } from './search-scope.js';
import type { ToolDefinition } from './types.js';
import { writeFileTool } from './write-file.js';

/** Tools that never change anything: the set offered before any writing tool exists. */
// `ToolDefinition<unknown>`: inputs are checked by `parseToolInput` before `execute`.
export const readOnlyTools: readonly ToolDefinition<unknown>[] = [listDirectoryTool, readFileTool];

/**
 * find_files and search_files: read-only too, but they walk whole trees, so they are made
 * with the protected paths they must never list or read.
 */
export function createSearchTools(options: SearchToolOptions): ToolDefinition<unknown>[] {
  return [
    createFindFilesTool(options),
    createSearchFilesTool(options),
  ] as ToolDefinition<unknown>[];
}

/**
 * Every built-in tool a started host offers: the read-only ones, the searches (with the
 * protected paths they skip), the two that write files, and run_command in `sandbox`.
 */
export function createHostTools(
  options: SearchToolOptions & { sandbox: Sandbox },
): ToolDefinition<unknown>[] {
  return [
    ...readOnlyTools,
    ...createSearchTools({ protectedPaths: options.protectedPaths }),
    writeFileTool,
    editFileTool,
    createRunCommandTool({ sandbox: options.sandbox }),
  ] as ToolDefinition<unknown>[];
}

/** The tool called `name`, or undefined when no such tool exists. */
export function getTool(name: string): ToolDefinition<unknown> | undefined {
  return readOnlyTools.find((tool) => tool.name === name);
}
