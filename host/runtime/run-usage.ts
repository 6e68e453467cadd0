/**
 * Token usage of a run and of its session, summed by the store, and the cost the configured
 * prices make of it (docs/protocol.md §6.2 `run.usage`).
 */
import type { TokenUsage } from '../../protocol/index.js';
import type { ModelUsageTotals } from '../store/index.js';
import type { ModelPrices } from './types.js';

const PER_MTOK = 1_000_000;

/**
 * Sums the per-model rows into one usage. A cost is given only when every message reported
 * its input and output tokens and every model has a price: a partial sum would look exact.
 */
export function tokenUsage(rows: readonly ModelUsageTotals[], prices: ModelPrices): TokenUsage {
  const sum = (pick: (row: ModelUsageTotals) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  const known = (count: (row: ModelUsageTotals) => number, value: number) =>
    sum(count) === 0 ? null : value;
  const usage: TokenUsage = {
    messages: sum((row) => row.messages),
    reported: sum((row) => row.reported),
    inputTokens: known(
      (row) => row.inputReported,
      sum((row) => row.inputTokens),
    ),
    cachedInputTokens: known(
      (row) => row.cachedReported,
      sum((row) => row.cachedInputTokens),
    ),
    outputTokens: known(
      (row) => row.outputReported,
      sum((row) => row.outputTokens),
    ),
    reasoningTokens: known(
      (row) => row.reasoningReported,
      sum((row) => row.reasoningTokens),
    ),
  };
  const usd = costOf(rows, prices);
  return usd === undefined ? usage : { ...usage, cost: { usd, estimate: true } };
}

function costOf(rows: readonly ModelUsageTotals[], prices: ModelPrices): number | undefined {
  if (rows.length === 0) return undefined;
  let usd = 0;
  for (const row of rows) {
    const price = row.model === null ? undefined : prices[row.model];
    if (price === undefined) return undefined;
    if (row.inputReported !== row.messages || row.outputReported !== row.messages) return undefined;
    const cached = Math.min(row.cachedInputTokens, row.inputTokens);
    usd +=
      ((row.inputTokens - cached) * price.inputPerMTok +
        cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
        row.outputTokens * price.outputPerMTok) /
      PER_MTOK;
  }
  return usd;
}
