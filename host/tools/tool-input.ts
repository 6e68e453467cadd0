/**
 * A tool's input at the edge: the JSON schema the model is shown, and the parsing of the
 * argument text the model sends back.
 */
import { z } from 'zod';
import { describeIssues, errorMessage } from '../../protocol/index.js';
import type { ToolDefinition } from './types.js';

/**
 * Completes a tool definition with `parameters`, the JSON schema of its input as the model
 * sees it (optional fields are not required; the `$schema` key is left out).
 */
export function defineTool<I>(tool: Omit<ToolDefinition<I>, 'parameters'>): ToolDefinition<I> {
  // Made at first use (the first model request), not when the tools are imported at start.
  let parameters: ToolDefinition<I>['parameters'] | undefined;
  return {
    ...tool,
    get parameters() {
      if (parameters === undefined) {
        const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.input, { io: 'input' });
        parameters = schema;
      }
      return parameters;
    },
  };
}

/** The outcome of {@link parseToolInput}; `message` is meant to be handed to the model. */
export type ParsedToolInput<I> = { ok: true; input: I } | { ok: false; message: string };

/**
 * Parses the model's raw JSON argument text and validates it with the tool's schema. A
 * failure lists every issue: `invalid input for read_file: offset: Too small: …`.
 */
export function parseToolInput<I>(tool: ToolDefinition<I>, raw: string): ParsedToolInput<I> {
  let value: unknown;
  try {
    // Some OpenAI-compatible providers send an empty string for "no arguments".
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    const reason = errorMessage(error);
    return { ok: false, message: `invalid input for ${tool.name}: not valid JSON (${reason})` };
  }
  const parsed = tool.input.safeParse(value);
  if (parsed.success) return { ok: true, input: parsed.data };
  const issues = describeIssues(parsed.error)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  return { ok: false, message: `invalid input for ${tool.name}: ${issues}` };
}
