/**
 * Token usage and its estimated cost as one line of text, the same in the app and the CLI:
 * "12.3k in (8.1k cached) · 1.2k out · 300 reasoning", "≈ $0.012 (estimate from your
 * configured prices)". A count the provider never gave is left out, never shown as 0.
 */
import type { TokenUsage } from '../../protocol/index.js';

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M". */
function tokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trim(count / 1000)}k`;
  return `${trim(count / 1_000_000)}M`;
}

function trim(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, '');
}

/** The counts as one line; undefined when the provider gave none. */
export function usageText(usage: TokenUsage): string | undefined {
  const parts: string[] = [];
  if (usage.inputTokens !== null) {
    const cached =
      usage.cachedInputTokens === null ? '' : ` (${tokens(usage.cachedInputTokens)} cached)`;
    parts.push(`${tokens(usage.inputTokens)} in${cached}`);
  }
  if (usage.outputTokens !== null) parts.push(`${tokens(usage.outputTokens)} out`);
  if (usage.reasoningTokens !== null) parts.push(`${tokens(usage.reasoningTokens)} reasoning`);
  if (parts.length === 0) return undefined;
  const missing = usage.messages - usage.reported;
  if (missing > 0) {
    parts.push(
      `${missing} of ${usage.messages} message${usage.messages === 1 ? '' : 's'} unreported`,
    );
  }
  return parts.join(' · ');
}

/** The estimate, labelled as one; undefined without a configured price. */
export function costText(usage: TokenUsage): string | undefined {
  if (usage.cost === undefined) return undefined;
  const { usd } = usage.cost;
  const shown =
    usd === 0 ? '$0' : usd < 0.001 ? '<$0.001' : `$${usd < 1 ? usd.toFixed(3) : usd.toFixed(2)}`;
  return `≈ ${shown} (estimate from your configured prices)`;
}
