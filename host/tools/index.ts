/**
 * host/tools/: the tools the model calls, their input schemas, and workspace containment.
 */
export type {
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolOutputFile,
  ToolOutputSink,
  ToolPreviewContext,
  ToolResult,
} from './types.js';
export { UNATTENDED_GIT_CONFIG, unattendedEnvironment } from './unattended-env.js';
export { defineTool, parseToolInput } from './tool-input.js';
export type { ParsedToolInput } from './tool-input.js';
export { resolveToolPath, resolveWorkspacePath } from './workspace-path.js';
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
export { FILE_WRITE_MAX_BYTES, PREVIEW_DIFF_MAX_BYTES } from './file-change.js';
export type { WriteToolOptions } from './file-change.js';
export { TEMP_FILE_PATTERN } from './atomic-write.js';
export { capDiff, unifiedDiff } from './unified-diff.js';
export type { UnifiedDiff } from './unified-diff.js';
export { createWriteFileTool, writeFileTool } from './write-file.js';
export type { WriteFileInput } from './write-file.js';
export { createEditFileTool, editFileTool } from './edit-file.js';
export type { EditFileInput } from './edit-file.js';
export {
  COMMAND_ENV_KEYS,
  RUN_COMMAND_DEFAULT_TIMEOUT_MS,
  RUN_COMMAND_MAX_BYTES,
  createRunCommandTool,
  runCommandTool,
} from './run-command.js';
export type { RunCommandInput, RunCommandOptions } from './run-command.js';
export { killProcessGroup } from './process-group.js';
export type { GroupStop } from './process-group.js';
