/**
 * host/tools/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export type { ToolOutputSink } from './types.js';
export { COMMAND_ENV_KEYS } from './command-process.js';
export { createRunCommandTool } from './run-command.js';
export type { RunCommandInput } from './run-command.js';
export { defineTool } from './tool-input.js';
export { createEditFileTool, editFileTool } from './edit-file.js';
export type { EditFileInput } from './edit-file.js';
export { TEMP_FILE_PATTERN } from './atomic-write.js';
export { listDirectoryTool } from './list-directory.js';
export type { ListDirectoryInput } from './list-directory.js';
export { READ_FILE_MAX_BYTES, readFileTool } from './read-file.js';
export type { ReadFileInput } from './read-file.js';
export { createSearchTools, getTool } from './registry.js';
export { PREVIEW_DIFF_MAX_BYTES } from './file-change.js';
export { capDiff, unifiedDiff } from './unified-diff.js';
export { createWriteFileTool, writeFileTool } from './write-file.js';
export type { WriteFileInput } from './write-file.js';
export { createFindFilesTool } from './find-files.js';
export type { FindFilesInput } from './find-files.js';
export { createSearchFilesTool } from './search-files.js';
export type { SearchFilesInput } from './search-files.js';
export type { SearchToolOptions } from './search-scope.js';
