/**
 * Token usage summed by the host (docs/protocol.md §6.2 `run.usage`) and the cost the
 * host's configured prices make of it.
 */
import { z } from 'zod';

const Count = z.number().int().nonnegative();

/**
 * Tokens over a set of assistant messages. `messages` counts them, `reported` those whose
 * provider gave a usage. Each count is the sum over the messages that gave it, null when
 * none did (unknown, not 0). `inputTokens` includes `cachedInputTokens`; `outputTokens`
 * includes `reasoningTokens` (as OpenAI and DeepSeek count them).
 */
export const TokenUsage = z.looseObject({
  messages: Count,
  reported: Count,
  inputTokens: Count.nullable(),
  cachedInputTokens: Count.nullable(),
  outputTokens: Count.nullable(),
  reasoningTokens: Count.nullable(),
  /**
   * An estimate from the prices in the host's config, in US dollars; present only when
   * every message counted reported its input and output tokens and its model has a price.
   */
  cost: z.looseObject({ usd: z.number().nonnegative(), estimate: z.literal(true) }).optional(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;
