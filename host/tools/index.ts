/**
 * host/tools/: the tools the model calls, their input schemas, and workspace containment.
 */
export type { ToolAccess, ToolContext, ToolDefinition, ToolResult } from './types.js';
export { parseToolInput } from './tool-input.js';
export { resolveWorkspacePath } from './workspace-path.js';
export { readCurrentFile } from './current-file.js';
export { createHostTools, readOnlyTools } from './registry.js';
export { isGroupGone, killProcessGroup, stopProcessGroup } from './process-group.js';
export {
  commandParts,
  commandWords,
  findShellSpecial,
  SHELL_METACHARACTERS,
} from './command-words.js';
