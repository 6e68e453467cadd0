/**
 * The tools a run may call: the built-in ones and, when the host has them, those of its
 * MCP servers; and the policy a runtime without one decides with.
 */
import type { ToolDefinition } from '../tools/index.js';
import type { PolicyFn, ToolServers, ToolTable } from './types.js';

/** The built-in tools by name, then the MCP servers' (offered while connected). */
export function toolTable(
  builtIns: readonly ToolDefinition<unknown>[],
  servers: ToolServers | undefined,
): ToolTable {
  const builtIn = new Map<string, ToolDefinition<unknown>>();
  for (const tool of builtIns) builtIn.set(tool.name, tool);
  if (servers === undefined) return builtIn;
  return {
    get: (name) => builtIn.get(name) ?? servers.get(name),
    values: () => [...builtIn.values(), ...servers.offeredTools()],
  };
}

/** Without a policy: tools that only read are allowed, everything else asks. */
export const defaultPolicy: PolicyFn = (call) =>
  Promise.resolve(
    call.access.kind === 'read'
      ? { decision: 'allow', reason: 'reading inside the workspace is allowed' }
      : { decision: 'ask', reason: `${call.name} changes things: it asks first` },
  );
