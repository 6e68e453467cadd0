/**
 * host/mcp/: MCP tool servers (the official SDK): their config, their processes, their
 * tools offered to runs as `mcp__<server>__<tool>`, and the policy of those tools.
 */
export { AbsolutePath, EnvName, McpConfig, SANDBOX_SETTINGS, SecretValue } from './mcp-config.js';
export { McpServers } from './mcp-servers.js';
export {
  existingRealPaths,
  INHERITED_ENV,
  McpSettingsError,
  plainSecrets,
  readSecret,
  resolveMcpServers,
  type McpSettingIssue,
  type ResolveOptions,
} from './server-settings.js';
export type { ServerGroupRecord } from './types.js';
