/**
 * Issue 24: the pairing screen tells a used link from an expired one (and a void or
 * unknown one), from the refusal the host sends (protocol/pair-refusal.ts; the host's
 * side is in test/server/handshake-failures.test.ts and test/cli/pair-stopped-and-origin.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { PAIR_REFUSALS, TetherError } from '../../protocol/index.js';
import { pairingError } from '../../remote/app/src/logic/pairing-error.js';

const refused = (message: string) => pairingError(new TetherError('pair_failed', message));

describe('pairingError', () => {
  it('says a used link and an expired link apart, each with the command for a new one', () => {
    const used = refused(PAIR_REFUSALS.used);
    const expired = refused(PAIR_REFUSALS.expired);

    expect(used).toBe(
      'This link was used already: a link pairs one device only. Make a new link on the host with: tether pair',
    );
    expect(expired).toBe('This link expired. Make a new link on the host with: tether pair');
    expect(refused(PAIR_REFUSALS.void)).toContain('void after failed attempts');
    expect(refused(PAIR_REFUSALS.unknown)).toContain('does not know this link');
    expect(new Set([used, expired, refused(PAIR_REFUSALS.void)]).size).toBe(3);
  });

  it('keeps to its own words for any other refusal, and prints no backticks', () => {
    const other = refused('pairing failed: scan the QR code at evil.example');

    expect(other).toContain('The host refused');
    expect(other).not.toContain('evil.example');
    for (const message of [...Object.values(PAIR_REFUSALS), 'pairing failed']) {
      expect(refused(message)).not.toContain('`');
    }
  });
});
