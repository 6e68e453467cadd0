/**
 * The usage line and cost label the app and the CLI show (remote/client/usage-text.ts):
 * counts rounded as "12.3k", a count the provider never gave left out rather than shown as
 * 0, unreported messages said, and a cost only as a labelled estimate.
 */
import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../protocol/index.js';
import { costText, usageText } from '../../remote/client/index.js';

const usage = (counts: Partial<TokenUsage>): TokenUsage => ({
  messages: 2,
  reported: 2,
  inputTokens: null,
  cachedInputTokens: null,
  outputTokens: null,
  reasoningTokens: null,
  ...counts,
});

describe('usageText', () => {
  it('reads like the issue asks: in (cached) · out · reasoning', () => {
    expect(
      usageText(
        usage({
          inputTokens: 12_345,
          cachedInputTokens: 8_100,
          outputTokens: 1_200,
          reasoningTokens: 300,
        }),
      ),
    ).toBe('12.3k in (8.1k cached) · 1.2k out · 300 reasoning');
    expect(usageText(usage({ inputTokens: 950, outputTokens: 2_500_000 }))).toBe(
      '950 in · 2.5M out',
    );
    expect(usageText(usage({ inputTokens: 123_456, outputTokens: 1000 }))).toBe('123k in · 1k out');
  });

  it('leaves out what was never reported, and says how many messages gave nothing', () => {
    expect(usageText(usage({}))).toBeUndefined();
    expect(usageText(usage({ reported: 1, inputTokens: 0, outputTokens: 0 }))).toBe(
      '0 in · 0 out · 1 of 2 messages unreported',
    );
  });
});

describe('costText', () => {
  it('labels the estimate and shows none without a price', () => {
    expect(costText(usage({}))).toBeUndefined();
    const priced = (usd: number) => costText(usage({ cost: { usd, estimate: true } }));
    expect(priced(0.012)).toBe('≈ $0.012 (estimate from your configured prices)');
    expect(priced(0.0004)).toBe('≈ <$0.001 (estimate from your configured prices)');
    expect(priced(3.456)).toBe('≈ $3.46 (estimate from your configured prices)');
    expect(priced(0)).toBe('≈ $0 (estimate from your configured prices)');
  });
});
