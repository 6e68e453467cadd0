/**
 * Every provider difference in one place: which provider a base URL is, how a
 * ModelRequest becomes a Chat Completions body for it, and where reasoning arrives.
 * Providers change these rules often (DeepSeek three times in a year): change them here.
 */
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ProviderKind } from './types.js';

/** A streaming Chat Completions body, with the provider-native fields the SDK does not type. */
export type ChatRequestBody = ChatCompletionCreateParamsStreaming & Record<string, unknown>;

/**
 * Delta fields that carry reasoning text, in order of preference: DeepSeek (and vLLM, Qwen)
 * send `reasoning_content`, Ollama (and OpenRouter) send `reasoning`.
 */
export const REASONING_DELTA_FIELDS = ['reasoning_content', 'reasoning'] as const;

interface ProviderRules {
  /** OpenAI's reasoning models reject `max_tokens`; DeepSeek only knows `max_tokens`. */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** DeepSeek's thinking mode rejects `required` and named tools: ask for `auto` explicitly. */
  readonly toolChoice: 'auto' | undefined;
  /** The native fields to send back on an earlier assistant message. */
  replayNative(native: Record<string, unknown>, hasTools: boolean): Record<string, unknown>;
}

const RULES: Record<ProviderKind, ProviderRules> = {
  deepseek: {
    maxTokensField: 'max_tokens',
    toolChoice: 'auto',
    // V4 (September 2026): with tools, every earlier assistant message's reasoning_content
    // goes back in full, the key present even when empty, or the API answers 400. Without
    // tools the API ignores it, so it is left out.
    replayNative(native, hasTools) {
      const { reasoning_content: reasoning, ...rest } = native;
      if (!hasTools) return rest;
      return { ...rest, reasoning_content: typeof reasoning === 'string' ? reasoning : '' };
    },
  },
  openai: {
    maxTokensField: 'max_completion_tokens',
    toolChoice: undefined,
    // OpenAI rejects fields it did not produce (reasoning_content) and produces none itself.
    replayNative: () => ({}),
  },
  ollama: {
    maxTokensField: 'max_tokens',
    toolChoice: undefined,
    replayNative: () => ({}),
  },
  generic: {
    maxTokensField: 'max_tokens',
    toolChoice: undefined,
    replayNative: (native) => native,
  },
};

/**
 * The provider behind `baseUrl`: api.deepseek.com, api.openai.com, port 11434 or a name
 * containing "ollama"; anything else is `generic`.
 */
export function detectProvider(baseUrl: string): ProviderKind {
  const url = new URL(baseUrl);
  if (url.hostname === 'api.deepseek.com') return 'deepseek';
  if (url.hostname === 'api.openai.com') return 'openai';
  if (url.port === '11434' || baseUrl.toLowerCase().includes('ollama')) return 'ollama';
  return 'generic';
}

/**
 * The Chat Completions body for `request` under `provider`'s rules. `extraBody` fields
 * come first, so they can add to the body but never replace what the request defines.
 */
export function buildChatRequest(
  provider: ProviderKind,
  request: ModelRequest,
  extraBody: Record<string, unknown> = {},
): ChatRequestBody {
  const rules = RULES[provider];
  const hasTools = request.tools.length > 0;
  const body: ChatRequestBody = {
    ...extraBody,
    model: request.model,
    messages: request.messages.map((message) => toChatMessage(message, rules, hasTools)),
    stream: true,
    // Usage comes in a last `choices: []` chunk (OpenAI, Ollama) or on the finishing
    // chunk (DeepSeek, which documents the option); the assembler reads both.
    stream_options: { include_usage: true },
  };
  if (hasTools) {
    // An empty `tools` array is a 400 at OpenAI: the key is sent only with tools.
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    if (rules.toolChoice !== undefined) body.tool_choice = rules.toolChoice;
  }
  if (request.maxOutputTokens !== undefined) {
    body[rules.maxTokensField] = request.maxOutputTokens;
  }
  return body;
}

function toChatMessage(
  message: ModelMessage,
  rules: ProviderRules,
  hasTools: boolean,
): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        ...rules.replayNative(message.native ?? {}, hasTools),
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
  }
}
