/**
 * Every provider difference in one place: which provider a base URL is, how a
 * ModelRequest becomes a Chat Completions body for it, and where reasoning arrives.
 * Providers change these rules often (DeepSeek three times in a year): change them here.
 */
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { ModelMessage, ModelRequest, ProviderKind } from './types.js';

/** A streaming Chat Completions body, with the provider-native fields the SDK does not type. */
export type ChatRequestBody = ChatCompletionCreateParamsStreaming & Record<string, unknown>;

/**
 * Delta fields that carry reasoning text, in order of preference: DeepSeek (and vLLM, Qwen,
 * SGLang, Groq, xAI, Kimi, LM Studio) send `reasoning_content`, Ollama (and OpenRouter,
 * Groq's `parsed` format) send `reasoning`. Every provider's stream is read with all of them;
 * Mistral's thinking parts and Gemini's thought-marked text are read in the assembler.
 */
export const REASONING_DELTA_FIELDS = ['reasoning_content', 'reasoning'] as const;

/** Tool-call fields of a provider's own that belong to that one call (Gemini 3). */
export const TOOL_CALL_NATIVE_KEY = 'tool_calls';

interface ProviderRules {
  /** How the base URL names the provider: host names (or their suffixes), then ports. */
  readonly hosts: readonly string[];
  readonly ports: readonly string[];
  /** OpenAI's reasoning models reject `max_tokens`; DeepSeek only knows `max_tokens`. */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** DeepSeek's thinking mode rejects `required` and named tools: ask for `auto` explicitly. */
  readonly toolChoice: 'auto' | undefined;
  /**
   * The message-level native fields to send back on an earlier assistant message. Only
   * what the provider needs: a provider rejects, or misreads, fields it does not know.
   */
  replayNative(native: Record<string, unknown>, hasTools: boolean): Record<string, unknown>;
  /** Whether each tool call's own native fields go back on that call. */
  readonly replayToolCallNative: boolean;
}

const nothing = (): Record<string, unknown> => ({});

/** Sends back only the reasoning fields the provider produced (fields like `index` stay). */
function reasoningOnly(native: Record<string, unknown>): Record<string, unknown> {
  const kept = REASONING_DELTA_FIELDS.filter((field) => native[field] !== undefined);
  return Object.fromEntries(kept.map((field) => [field, native[field]]));
}

/** A provider that produces no native field anyone needs back. */
const plain = {
  maxTokensField: 'max_tokens',
  toolChoice: undefined,
  replayNative: nothing,
  replayToolCallNative: false,
} as const;

/**
 * Every provider's behaviour, one row each (docs/model-providers.md is this table in prose).
 * Read-side differences (where usage and reasoning arrive, error shapes) are accepted from
 * every provider alike, so a misdetected provider still reads correctly; these rows decide
 * what is sent.
 */
const RULES: Record<ProviderKind, ProviderRules> = {
  deepseek: {
    hosts: ['api.deepseek.com'],
    ports: [],
    maxTokensField: 'max_tokens',
    toolChoice: 'auto',
    // V4 (September 2026): with tools, every earlier assistant message's reasoning_content
    // goes back in full, the key present even when empty, or the API answers 400. Without
    // tools the API ignores it, so it is left out.
    replayNative(native, hasTools) {
      const { reasoning_content: reasoning } = native;
      if (!hasTools) return {};
      return { reasoning_content: typeof reasoning === 'string' ? reasoning : '' };
    },
    replayToolCallNative: false,
  },
  // OpenAI rejects fields it did not produce (reasoning_content) and produces none itself.
  openai: {
    ...plain,
    hosts: ['api.openai.com'],
    ports: [],
    maxTokensField: 'max_completion_tokens',
  },
  azure: {
    ...plain,
    hosts: ['.openai.azure.com', '.cognitiveservices.azure.com', '.services.ai.azure.com'],
    ports: [],
    maxTokensField: 'max_completion_tokens',
  },
  // Gemini 3 answers 400 "Function call is missing a thought_signature" unless each call's
  // extra_content.google.thought_signature comes back on that call.
  gemini: {
    ...plain,
    hosts: ['generativelanguage.googleapis.com', 'aiplatform.googleapis.com'],
    ports: [],
    replayToolCallNative: true,
  },
  mistral: { ...plain, hosts: ['api.mistral.ai'], ports: [] },
  groq: { ...plain, hosts: ['api.groq.com'], ports: [] },
  xai: { ...plain, hosts: ['api.x.ai'], ports: [] },
  // kimi-k2-thinking keeps its reasoning_content across the steps of a tool-call turn.
  moonshot: {
    ...plain,
    hosts: ['api.moonshot.ai', 'api.moonshot.cn'],
    ports: [],
    replayNative: reasoningOnly,
  },
  dashscope: {
    ...plain,
    hosts: ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com'],
    ports: [],
  },
  openrouter: { ...plain, hosts: ['openrouter.ai'], ports: [], replayNative: reasoningOnly },
  ollama: { ...plain, hosts: [], ports: ['11434'] },
  llamacpp: { ...plain, hosts: [], ports: ['8080'] },
  vllm: { ...plain, hosts: [], ports: ['8000'] },
  sglang: { ...plain, hosts: [], ports: ['30000'] },
  lmstudio: { ...plain, hosts: [], ports: ['1234'] },
  // An endpoint of unknown make gets back the reasoning it produced (a DeepSeek model behind
  // a router needs it), never other delta fields such as a router's `index`.
  generic: {
    ...plain,
    hosts: [],
    ports: [],
    replayNative: reasoningOnly,
    replayToolCallNative: true,
  },
};

/**
 * Which known models take images, by model name whatever the provider (routers and local
 * servers serve the same names), first match wins. Known as of late 2026 from the
 * providers' model pages; a model not listed is sent its images, and a provider that
 * refuses them fails the run with `unsupported_input` (error-classes.ts), not a retry.
 */
const IMAGE_INPUT: readonly { names: RegExp; images: boolean }[] = [
  // DeepSeek's API, Kimi K2 and the code models take text only.
  { names: /(^|\/)(deepseek-|kimi-k2|codestral|devstral|gpt-3\.5)/i, images: false },
  {
    names:
      /(^|\/)(gpt-4o|gpt-4\.1|gpt-5|o3|o4-mini|claude-|gemini-|pixtral|mistral-(medium|small)|grok-4|grok-2-vision|llama-4|llava|gemma-?3|qwen[\d.]*-?vl)/i,
    images: true,
  },
];

/** Whether `model` takes images: true or false when Tether knows, undefined when not. */
export function takesImages(model: string): boolean | undefined {
  return IMAGE_INPUT.find((row) => row.names.test(model))?.images;
}

/** Local servers whose name in a base URL (a host alias, a path) says what they are. */
const LOCAL_SERVERS = ['ollama', 'lmstudio', 'llamacpp', 'vllm', 'sglang'] as const;

/**
 * The provider behind `baseUrl`: by host name (api.deepseek.com, *.openai.azure.com,
 * generativelanguage.googleapis.com, ...), by a name in the URL ("ollama", "lmstudio"), or
 * by the local server's default port (11434 Ollama, 8080 llama.cpp, 8000 vLLM, 30000
 * SGLang, 1234 LM Studio); anything else is `generic`.
 */
export function detectProvider(baseUrl: string): ProviderKind {
  const url = new URL(baseUrl);
  const host = url.hostname.toLowerCase();
  const kinds = Object.keys(RULES) as ProviderKind[];
  const byHost = kinds.find((kind) =>
    RULES[kind].hosts.some((name) => (name.startsWith('.') ? host.endsWith(name) : host === name)),
  );
  if (byHost) return byHost;
  const lower = baseUrl.toLowerCase();
  const byName = LOCAL_SERVERS.find((kind) => lower.includes(kind));
  if (byName) return byName;
  return kinds.find((kind) => RULES[kind].ports.includes(url.port)) ?? 'generic';
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
      return { role: 'system', content: message.content };
    case 'user':
      if (message.images === undefined || message.images.length === 0) {
        return { role: 'user', content: message.content };
      }
      return {
        role: 'user',
        content: [
          { type: 'text', text: message.content },
          ...message.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
        ],
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const native = message.native ?? {};
      const callNative = rules.replayToolCallNative ? toolCallNatives(native) : NO_CALL_NATIVES;
      return {
        ...rules.replayNative(native, hasTools),
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({
            ...callNative.get(call.id),
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
    }
  }
}

const NO_CALL_NATIVES: ReadonlyMap<string, Record<string, unknown>> = new Map();

const toolCallNativesSchema = z.array(z.looseObject({ id: z.string() }));

/** The per-call native fields kept on a message (`native.tool_calls`), by call id. */
function toolCallNatives(
  native: Record<string, unknown>,
): ReadonlyMap<string, Record<string, unknown>> {
  const parsed = toolCallNativesSchema.safeParse(native[TOOL_CALL_NATIVE_KEY]);
  if (!parsed.success) return new Map();
  return new Map(parsed.data.map(({ id, ...fields }) => [id, fields]));
}
