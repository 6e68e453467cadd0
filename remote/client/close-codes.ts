/**
 * What a closed socket means (docs/protocol.md §2), as a {@link TetherError}, and what
 * a connection does next.
 */
import { CloseCode, ERROR_CODE_NAMES, ERROR_CODES, TetherError } from '../../protocol/index.js';

/** The error a socket closed with `code` stands for; `unavailable` when nothing more specific. */
export function closeError(code: number, reason = ''): TetherError {
  const suffix = reason === '' ? '' : `: ${reason}`;
  if (code === CloseCode.normal || code === CloseCode.rekey) {
    return new TetherError('unavailable', `connection closed (${code})${suffix}`);
  }
  if (code === CloseCode.goingAway) {
    return new TetherError('unavailable', `host shutting down${suffix}`);
  }
  if (code === CloseCode.unauthorized) {
    return new TetherError('unauthorized', `not paired, or the host identity changed${suffix}`);
  }
  const match = ERROR_CODE_NAMES.find((name) => ERROR_CODES[name].close === code);
  if (match !== undefined) return new TetherError(match, `connection closed (${code})${suffix}`);
  return new TetherError('unavailable', `connection lost (${code})${suffix}`);
}

/**
 * After a connection ends: `now` reconnects at once (rekey), `backoff` after a jittered
 * wait, `stop` ends the connection for good (revoked, unknown to the host, no common version).
 */
export type NextStep = 'now' | 'backoff' | 'stop';

/** The next step after a connection ended with `error` (or a close with `code`). */
export function nextStep(code: number | undefined, error: TetherError): NextStep {
  if (code === CloseCode.rekey) return 'now';
  switch (error.code) {
    case 'device_revoked':
    case 'unauthorized':
    case 'unsupported_version':
      return 'stop';
    default:
      return 'backoff';
  }
}
