/**
 * How many tokens a context takes, estimated (docs/sessions.md, "Counting"): no tokenizer
 * fits every provider, so characters are divided by a ratio (3.5 characters a token until
 * the provider says otherwise), with a margin, plus a few tokens a message. After each
 * answer the provider's `usage.prompt_tokens` of that request recalibrates the ratio.
 */

const DEFAULT_CHARS_PER_TOKEN = 3.5;
/** Estimates run this much high: a context that only just fits by estimate may not. */
const SAFETY = 1.1;
/** Role markers and separators a chat template adds around each message. */
const TOKENS_PER_MESSAGE = 4;
/** The most and least characters a token is believed to hold, whatever a provider reports. */
const RATIO_BOUNDS = [1, 6] as const;

/** The size of a request as the estimate sees it. */
export interface RequestSize {
  /** Characters of every message and of the tool schemas sent with them. */
  chars: number;
  messages: number;
}

/** One estimator a run: it learns the provider's ratio from that run's answers. */
export class TokenCount {
  private charsPerToken = DEFAULT_CHARS_PER_TOKEN;

  estimate(size: RequestSize): number {
    return (
      Math.ceil((size.chars / this.charsPerToken) * SAFETY) + size.messages * TOKENS_PER_MESSAGE
    );
  }

  /** The most characters `messages` messages may hold to stay within `tokens`. */
  charsWithin(tokens: number, messages: number): number {
    const textTokens = tokens - messages * TOKENS_PER_MESSAGE;
    return Math.max(0, Math.floor((textTokens / SAFETY) * this.charsPerToken));
  }

  /** The provider counted `promptTokens` for a request of `size`. */
  calibrate(size: RequestSize, promptTokens: number): void {
    const textTokens = promptTokens - size.messages * TOKENS_PER_MESSAGE;
    if (!Number.isFinite(textTokens) || textTokens <= 0 || size.chars === 0) return;
    const ratio = size.chars / textTokens;
    this.charsPerToken = Math.min(RATIO_BOUNDS[1], Math.max(RATIO_BOUNDS[0], ratio));
  }
}

/**
 * What one request may hold: `contextTokens` (the model's window) less a reserve for the
 * answer, a quarter of the window up to 16K tokens.
 */
export function inputBudget(contextTokens: number): number {
  return contextTokens - Math.min(16_384, Math.ceil(contextTokens / 4));
}
