/**
 * host/mcp/: MCP tool servers (the official SDK): their config, their processes, their
 * tools offered to runs as `mcp__<server>__<tool>`, and the policy of those tools.
 */
export { McpConfig } from './mcp-config.js';
export { McpServers } from './mcp-servers.js';
export { McpSettingsError, resolveMcpServers } from './server-settings.js';
