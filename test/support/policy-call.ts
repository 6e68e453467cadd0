/**
 * A tool call as policy sees it, made by the host's own tools: the access each declares
 * for the input (host/tools `ToolAccess`), so policy tests decide on the same
 * declarations the runtime passes. A name no built-in tool has is opaque.
 */
import type { PolicyCall } from '../../host/policy/testing.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import {
  createRunCommandTool,
  createSearchTools,
  editFileTool,
  writeFileTool,
} from '../../host/tools/testing.js';
import { machineSandbox } from './sandbox.js';

const TOOLS: readonly ToolDefinition<unknown>[] = [
  ...readOnlyTools,
  ...createSearchTools({ protectedPaths: () => Promise.resolve(() => false) }),
  writeFileTool,
  editFileTool,
  createRunCommandTool({ sandbox: machineSandbox() }),
] as ToolDefinition<unknown>[];

/** `name` called with `input`; throws for input the tool itself would refuse. */
export function policyCall(name: string, input: unknown): PolicyCall {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (tool === undefined) return { name, access: { kind: 'opaque' } };
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) throw new Error(`${name} refuses this input: ${parsed.error.message}`);
  return { name, access: tool.access(parsed.data) };
}
