/**
 * Why a host refused a pairing link, when the link itself is the reason (docs/protocol.md
 * §3, step 2): the message of its `pair_failed` error says which. Every other pairing
 * failure says only "pairing failed".
 */

/** The host's `pair_failed` message for each state of an offer that cannot pair. */
export const PAIR_REFUSALS = {
  used: 'pairing failed: this link was used already',
  expired: 'pairing failed: this link expired',
  void: 'pairing failed: this link is void after failed attempts',
  unknown: 'pairing failed: this host has no such link',
} as const;

/** An offer state that refuses its link. */
export type PairRefusal = keyof typeof PAIR_REFUSALS;

/** The refusal a `pair_failed` message names, if it is one of {@link PAIR_REFUSALS}. */
export function pairRefusalOf(message: string): PairRefusal | undefined {
  const entries = Object.entries(PAIR_REFUSALS) as [PairRefusal, string][];
  return entries.find(([, text]) => text === message)?.[0];
}
