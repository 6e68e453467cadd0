/**
 * What a connection runs of the MCP SDK, in one module that mcp-connection.ts loads with
 * `import()` on its first connect: the SDK, its message schemas and its JSON-Schema
 * validator (ajv) are the biggest code the host has, and a host with no `mcp.servers`
 * never needs them (docs/performance.md, "Idle RSS").
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { GroupStdioTransport } from './group-stdio-transport.js';
export { mcpToolOf, resultOf } from './mcp-tool.js';
