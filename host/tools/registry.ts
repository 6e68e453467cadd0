/**
 * The tools the model can be offered, by name.
 */
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import type { ToolDefinition } from './types.js';

/** Tools that never change anything: the set offered before any writing tool exists. */
// `ToolDefinition<unknown>`: inputs are checked by `parseToolInput` before `execute`.
export const readOnlyTools: readonly ToolDefinition<unknown>[] = [listDirectoryTool, readFileTool];

/** The tool called `name`, or undefined when no such tool exists. */
export function getTool(name: string): ToolDefinition<unknown> | undefined {
  return readOnlyTools.find((tool) => tool.name === name);
}
