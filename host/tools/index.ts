/**
 * host/tools/: the tools the model calls, their input schemas, and workspace containment.
 */
export type {
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolOutputFile,
  ToolOutputSink,
  ToolResult,
} from './types.js';
export { defineTool, parseToolInput } from './tool-input.js';
export type { ParsedToolInput } from './tool-input.js';
export { resolveWorkspacePath } from './workspace-path.js';
export type { WorkspacePath } from './workspace-path.js';
export { READ_FILE_DEFAULT_LIMIT, READ_FILE_MAX_BYTES, readFileTool } from './read-file.js';
export type { ReadFileInput } from './read-file.js';
export {
  LIST_DIRECTORY_DEFAULT_DEPTH,
  LIST_DIRECTORY_MAX_ENTRIES,
  NOISY_FOLDERS,
  listDirectoryTool,
} from './list-directory.js';
export type { DirectoryEntry, ListDirectoryInput } from './list-directory.js';
export { getTool, readOnlyTools } from './registry.js';
