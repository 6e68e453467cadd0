/**
 * A tool an MCP server lists, as the model is offered it: `mcp__<server>__<tool>`, its
 * input schema checked by a JSON-Schema validator before any call reaches the server, and
 * what the server answers turned into a tool result. Everything a server says is
 * untrusted: names are checked, descriptions and schemas capped.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext, ToolDefinition, ToolResult } from '../tools/index.js';
import { mcpToolName } from './mcp-tool-name.js';
import { errorMessage } from '../../protocol/index.js';

/** OpenAI's limit for a function name, and its alphabet. */
const MODEL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DESCRIPTION_MAX = 1024;
const SCHEMA_MAX_CHARS = 32 * 1024;
/** Structured content kept in the call's result record (the output file has all of it). */
const STRUCTURED_DATA_MAX_CHARS = 8 * 1024;

/** What the host knows of one listed tool. */
export interface McpTool {
  definition: ToolDefinition<unknown>;
  /** The tool's name on its server. */
  tool: string;
  /** The server says the tool only reads (a claim: trusted only with `trustHints`). */
  readOnlyHint: boolean;
}

/** Sends one validated call to the server and says what came of it. */
export type SendCall = (tool: string, input: unknown, ctx: ToolContext) => Promise<ToolResult>;

const validators = new AjvJsonSchemaValidator();

/** The tool as the model is offered it, or why it is left out. */
export function mcpToolOf(
  server: string,
  listed: Tool,
  send: SendCall,
): { ok: true; tool: McpTool } | { ok: false; reason: string } {
  const name = mcpToolName(server, listed.name);
  if (!MODEL_NAME.test(listed.name) || !MODEL_NAME.test(name)) {
    return {
      ok: false,
      reason: `its name ${JSON.stringify(listed.name.slice(0, 80))} is not 1 to 64 letters, digits, _ or -, or ${name.length > 64 ? 'mcp__<server>__<tool> is longer than 64' : 'has other characters'}`,
    };
  }
  const schema = listed.inputSchema as Record<string, unknown>;
  const { $schema: _dialect, ...parameters } = schema;
  if (JSON.stringify(schema).length > SCHEMA_MAX_CHARS) {
    return { ok: false, reason: `its input schema is larger than ${SCHEMA_MAX_CHARS} characters` };
  }
  let validate: ReturnType<typeof validators.getValidator>;
  try {
    validate = validators.getValidator(schema);
  } catch (error) {
    return {
      ok: false,
      reason: `its input schema does not compile: ${errorMessage(error)}`,
    };
  }
  const input = z.unknown().superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'expected an object of arguments' });
      return;
    }
    const checked = validate(value);
    if (!checked.valid) ctx.addIssue({ code: 'custom', message: checked.errorMessage });
  });
  const readOnlyHint = listed.annotations?.readOnlyHint === true;
  const description = capped(listed.description ?? listed.title ?? '', DESCRIPTION_MAX);
  const definition: ToolDefinition<unknown> = {
    name,
    description: `[tool ${listed.name} of the MCP server ${server}] ${description}`,
    input,
    parameters,
    // Policy cannot see inside a server's tool: the server's config decides (mcp-servers.ts).
    access: () => ({ kind: 'opaque' }),
    execute: (value, ctx) => send(listed.name, value, ctx),
    preview: () =>
      Promise.resolve({ kind: 'mcp', server, tool: listed.name, description, readOnlyHint }),
  };
  return { ok: true, tool: { definition, tool: listed.name, readOnlyHint } };
}

function capped(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)} [… description cut at ${max} characters]`;
}

/**
 * A server's answer as a tool result: text parts joined, images and audio kept as
 * artifacts (data: URLs), embedded resources as text, structured content as JSON when no
 * text says it. `isError` makes it a failure the model sees.
 */
export function resultOf(server: string, tool: string, answer: CallToolResult): ToolResult {
  const parts: string[] = [];
  const artifacts: NonNullable<ToolResult['artifacts']> = [];
  for (const block of answer.content) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
      case 'audio': {
        const name = `${block.type}-${artifacts.length + 1}`;
        artifacts.push({
          kind: block.type,
          name: `${name} (${block.mimeType})`,
          content: `data:${block.mimeType};base64,${block.data}`,
        });
        parts.push(`[${block.type} ${block.mimeType}: kept as artifact ${name}]`);
        break;
      }
      case 'resource': {
        const resource = block.resource;
        parts.push(
          'text' in resource
            ? `[resource ${resource.uri}]\n${resource.text}`
            : `[resource ${resource.uri}: ${resource.mimeType ?? 'binary'}, not shown]`,
        );
        break;
      }
      case 'resource_link':
        parts.push(`[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`);
        break;
    }
  }
  const structured = answer.structuredContent;
  const structuredText = structured === undefined ? '' : JSON.stringify(structured);
  if (structured !== undefined && parts.length === 0) parts.push(structuredText);
  const content = parts.join('\n');
  const data =
    structured !== undefined && structuredText.length <= STRUCTURED_DATA_MAX_CHARS
      ? { data: { structuredContent: structured } }
      : {};
  const base = { content, artifacts, ...data };
  if (answer.isError === true) {
    const message = `${tool} of MCP server ${server} answered with an error`;
    return { ...base, status: 'failed', summary: message, error: { code: 'tool_error', message } };
  }
  return { ...base, status: 'succeeded', summary: `${tool} of MCP server ${server} answered` };
}
