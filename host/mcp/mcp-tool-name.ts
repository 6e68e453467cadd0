/**
 * `mcp__<server>__<tool>`: how the model, policy, approvals and digests name a tool of an
 * MCP server. Apart from mcp-tool.ts, which needs the SDK: the policy parses the name of
 * every tool call, also on a host that never loads the SDK.
 */

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** The server and the tool in `mcp__<server>__<tool>`; null for any other name. */
export function parseMcpToolName(name: string): { server: string; tool: string } | null {
  const match = /^mcp__([A-Za-z0-9-]+)__(.+)$/.exec(name);
  if (match === null) return null;
  return { server: match[1] ?? '', tool: match[2] ?? '' };
}
