/**
 * What the pairing screen says when pairing fails: by the error's code, and for a link the
 * host refused, by the link's own state when the host says it (used, expired, void,
 * unknown: protocol/pair-refusal.ts), in words of its own, not the host's (not yet trusted).
 */
import { pairRefusalOf, TetherError } from '#protocol';

/** The sentence the pairing screen shows for `error`. */
export function pairingError(error: unknown): string {
  if (error instanceof TetherError) {
    switch (error.code) {
      case 'invalid_request':
        return 'That is not a Tether pairing link. Copy the whole link the host printed.';
      case 'pair_failed':
        return pairRefusedText(error.message);
      case 'unauthorized':
        return 'This is not the host you scanned. Do not pair.';
      case 'handshake_timeout':
      case 'unavailable':
        return 'Cannot reach the host. Is it running, and is this device on the same network?';
      default:
        return `Pairing failed: ${error.message}`;
    }
  }
  return 'Cannot reach the host. Is it running, and is this device on the same network?';
}

/** The host's refusal in words, by the link's own state when the host says it. */
function pairRefusedText(message: string): string {
  const fresh = 'Make a new link on the host with: tether pair';
  switch (pairRefusalOf(message)) {
    case 'used':
      return `This link was used already: a link pairs one device only. ${fresh}`;
    case 'expired':
      return `This link expired. ${fresh}`;
    case 'void':
      return `This link is void after failed attempts. ${fresh}`;
    case 'unknown':
      return `The host does not know this link: it expired long ago, or is from another host. ${fresh}`;
    case undefined:
      return `The host refused: the link expired, was used already, or is not the host you scanned. ${fresh}`;
  }
}
