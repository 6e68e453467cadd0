/**
 * The wire shape of one streamed Chat Completions chunk, validated at the edge. Objects are
 * loose: fields no SDK types (reasoning_content, reasoning, extra_content, ...) are kept, not
 * dropped. Every provider's dialect is accepted here (see provider-rules.ts for who sends what).
 */
import { z } from 'zod';
import type { ModelUsage } from './types.js';

const toolCallDeltaSchema = z.looseObject({
  // Missing on some Ollama versions and on Gemini, or always 0 there: the assembler also matches by id.
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z
    .looseObject({ name: z.string().nullish(), arguments: z.string().nullish() })
    .nullish(),
});

/**
 * One part of a content array. Mistral's reasoning models (Magistral, mistral-small with
 * thinking) stream `[{type: "thinking", thinking: [{type: "text", text}]}]` and
 * `[{type: "text", text}]` instead of a string.
 */
const contentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.array(z.looseObject({ type: z.string(), text: z.string().nullish() })).nullish(),
});

const deltaSchema = z.looseObject({
  role: z.string().nullish(),
  content: z.union([z.string(), z.array(contentPartSchema)]).nullish(),
  refusal: z.string().nullish(),
  tool_calls: z.array(toolCallDeltaSchema).nullish(),
});

const usageObject = z.record(z.string(), z.unknown());

/**
 * One streamed chunk; `usage` rides on the finishing chunk, on a `choices: []` chunk, or
 * (Moonshot/Kimi) inside `choices[0]`.
 */
export const chatChunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: deltaSchema.nullish(),
        finish_reason: z.string().nullish(),
        usage: usageObject.nullish(),
      }),
    )
    .nullish(),
  usage: usageObject.nullish(),
});

export type ChatChunk = z.infer<typeof chatChunkSchema>;
export type ChatDelta = z.infer<typeof deltaSchema>;
export type ToolCallDelta = z.infer<typeof toolCallDeltaSchema>;

/**
 * An error sent as a stream event without an `error` key, which the SDK passes on as data:
 * vLLM ≤ 0.6 and SGLang send `{"object": "error", "message", "type", "code": 400}`.
 */
export const streamErrorSchema = z.looseObject({
  object: z.literal('error'),
  message: z.string(),
  type: z.string().nullish(),
  code: z.union([z.number(), z.string()]).nullish(),
});

const count = z.number().int().nonnegative().optional().catch(undefined);
const usageSchema = z.looseObject({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  // DeepSeek names its cache counters this way; OpenAI reports only cached_tokens.
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
  // Moonshot/Kimi reports its cache hits at the top level of usage.
  cached_tokens: count,
  prompt_tokens_details: z.looseObject({ cached_tokens: count }).nullish().catch(undefined),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count }).nullish().catch(undefined),
});

/** Reads a provider's usage object, keeping only the counts it actually gave. */
export function toModelUsage(raw: Record<string, unknown>): ModelUsage {
  const usage = usageSchema.parse(raw);
  const counts = {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    cacheHitTokens:
      usage.prompt_cache_hit_tokens ??
      usage.prompt_tokens_details?.cached_tokens ??
      usage.cached_tokens,
    cacheMissTokens: usage.prompt_cache_miss_tokens,
  };
  const given = Object.entries(counts).filter(([, value]) => value !== undefined);
  return { ...Object.fromEntries(given), raw };
}
