/**
 * Token usage summed by the host (docs/protocol.md §6.2 `run.usage`) and the cost the
 * host's configured prices make of it.
 */
import { z } from 'zod/mini';

const Count = z.int().check(z.nonnegative());

/**
 * Tokens over a set of assistant messages. `messages` counts them, `reported` those whose
 * provider gave a usage. Each count is the sum over the messages that gave it, null when
 * none did (unknown, not 0). `inputTokens` includes `cachedInputTokens`; `outputTokens`
 * includes `reasoningTokens` (as OpenAI and DeepSeek count them).
 */
export const TokenUsage = z.looseObject({
  messages: Count,
  reported: Count,
  inputTokens: z.nullable(Count),
  cachedInputTokens: z.nullable(Count),
  outputTokens: z.nullable(Count),
  reasoningTokens: z.nullable(Count),
  /**
   * An estimate from the prices in the host's config, in US dollars; present only when
   * every message counted reported its input and output tokens and its model has a price.
   */
  cost: z.optional(
    z.looseObject({ usd: z.number().check(z.nonnegative()), estimate: z.literal(true) }),
  ),
});
export type TokenUsage = z.infer<typeof TokenUsage>;
