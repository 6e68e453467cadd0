/**
 * Contracts of host/model/: what the runtime sends to a chat model and what it gets back.
 * Provider differences stay behind {@link ModelAdapter}; these types are provider-neutral.
 */
import type { ModelFailureCode } from '../../protocol/index.js';
import type { Redactor } from '../log/index.js';

/** Which provider's rules apply to requests and replies (see provider-rules.ts). */
export const PROVIDER_KINDS = [
  'deepseek',
  'openai',
  'azure',
  'gemini',
  'mistral',
  'groq',
  'xai',
  'moonshot',
  'dashscope',
  'openrouter',
  'ollama',
  'llamacpp',
  'vllm',
  'sglang',
  'lmstudio',
  'generic',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Streams one model turn. Made by `createModelAdapter`. */
export interface ModelAdapter {
  readonly provider: ProviderKind;
  /**
   * Streams one assistant turn for `request`. Never throws for model or network failures:
   * the stream ends with exactly one `completed` or `failed` event. Aborting `signal` ends
   * it promptly with `failed` class `aborted`. A `retry` event means everything streamed so
   * far for this request is void and a new attempt follows after `delayMs`.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>;
}

/** One model request: the whole context, the tools on offer, and an output cap. */
export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  maxOutputTokens?: number;
}

/**
 * One message of the context. `native` on an assistant message holds the provider-native
 * fields that provider returned (ModelCompletion.native), stored verbatim so the provider
 * rules can send back exactly what each provider needs.
 */
export type ModelMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string;
      /** Images after the text, as `data:<type>;base64,…` URLs (docs/attachments.md). */
      images?: readonly string[];
    }
  | {
      role: 'assistant';
      content: string;
      toolCalls: ModelToolCall[];
      native?: Record<string, unknown>;
    }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool call as the model produced it; `arguments` is raw JSON text, not yet validated. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool offered to the model; `parameters` is its JSON schema. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * What `ModelAdapter.stream` yields. `tool_call_delta.index` is the adapter's own dense
 * position of the call in this turn (0, 1, ...), stable across fragments, whatever index
 * or id scheme the provider used. `retry.attempt` is the number of the attempt about to
 * start (2 for the first retry); `maxAttempts` counts the first attempt too.
 */
export type ModelStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'reasoning'; delta: string }
  | { type: 'tool_call_delta'; index: number; id?: string; name?: string; argumentsDelta: string }
  | {
      type: 'retry';
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      reason: ModelErrorClass;
      status?: number;
      message: string;
    }
  | { type: 'completed'; message: ModelCompletion }
  | { type: 'failed'; error: ModelFailure };

/**
 * A finished assistant turn. It is a tool-call turn exactly when `toolCalls` is non-empty,
 * whatever `finishReason` says (some models end tool-call turns with `stop`).
 * `finishReason` is the provider's own word. `native` holds every provider-native field of
 * the assistant message (e.g. `{reasoning_content: "..."}` from DeepSeek, `{reasoning: "..."}`
 * from Ollama), joined across fragments; store it on the message as `native`. Fields a
 * provider put on single tool calls (Gemini's `extra_content.google.thought_signature`) are
 * kept there as `tool_calls: [{id, ...fields}]`, so they survive storage with the message.
 */
export interface ModelCompletion {
  text: string;
  reasoning?: string;
  toolCalls: ModelToolCall[];
  finishReason: string;
  usage?: ModelUsage;
  native: Record<string, unknown>;
}

/** Token usage, with only the numbers the provider gave (never computed), and its raw object. */
export interface ModelUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cacheHitTokens?: number;
  cacheMissTokens?: number;
  raw: Record<string, unknown>;
}

/**
 * Why a model request failed; `model.retry` events carry it as `reason`. `aborted` (the
 * run's signal stopped the request) never reaches the wire.
 */
export type ModelErrorClass = ModelFailureCode | 'aborted';

/**
 * A failed model request. `retryable`: the same request may succeed if sent again later.
 * `message` never holds a secret: the adapter masks its API key (whole, cut short or
 * elided) and every token shaped like a key in it.
 */
export interface ModelFailure {
  class: ModelErrorClass;
  message: string;
  status?: number;
  retryable: boolean;
}

/** Settings of `createModelAdapter`. Durations are milliseconds. */
export interface ModelAdapterConfig {
  /** OpenAI-compatible base URL, e.g. `https://api.deepseek.com` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; without it no Authorization header is sent at all. */
  apiKey?: string;
  /** Provider rules to apply; detected from `baseUrl` when absent. */
  provider?: ProviderKind;
  /** Attempts per request, the first included (default 5). */
  maxAttempts?: number;
  /** Base of the exponential backoff with full jitter (default 1000). */
  retryBaseDelayMs?: number;
  /** Cap of every retry delay, `Retry-After` included (default 60000). */
  retryMaxDelayMs?: number;
  /** From sending the request to its first chunk (default 10 min: DeepSeek queues under load). */
  firstTokenTimeoutMs?: number;
  /** Longest silence between two chunks once the first has arrived (default 60000). */
  idleTimeoutMs?: number;
  /** Extra top-level body fields, e.g. `{thinking: {type: 'enabled'}}` for DeepSeek. */
  extraBody?: Record<string, unknown>;
  /**
   * The host's secrets, masked in every failure message; `apiKey` is registered in it.
   * Default: a redactor of the adapter's own that holds `apiKey` alone.
   */
  secrets?: Redactor;
}
