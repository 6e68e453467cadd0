/**
 * Why a connection failed, in the words a person can act on: the name did not resolve
 * (DNS), nothing listened (refused), nothing answered in time (timeout), or the TLS
 * certificate was not trusted (TLS); each with what to try.
 */
import { tetherCommand } from './command-name.js';
import { errorMessage } from '../../protocol/index.js';

/** The kinds of "cannot reach" a command tells apart. */
type NetworkFailureKind = 'DNS' | 'refused' | 'timeout' | 'TLS' | 'network';

/** A connection failure, classified. */
interface NetworkFailure {
  kind: NetworkFailureKind;
  /** The system's code (`ENOTFOUND`, `ECONNREFUSED`, `CERT_HAS_EXPIRED`…), when known. */
  code: string | undefined;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);
// EPROTO: the TLS handshake met something else, e.g. an https:// link to a plain HTTP host.
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

/** The error and its causes, outermost first (fetch hides the socket's error in `cause`). */
function chain(error: unknown): unknown[] {
  const errors: unknown[] = [];
  for (let at = error; at !== undefined && at !== null && errors.length < 5;) {
    errors.push(at);
    at = (at as { cause?: unknown }).cause;
  }
  return errors;
}

/** Classifies a failed connection from its error (or any error in its `cause` chain). */
function classifyNetworkError(error: unknown): NetworkFailure {
  for (const at of chain(error)) {
    const code = (at as { code?: unknown }).code;
    const name = (at as { name?: unknown }).name;
    if (typeof code === 'string') {
      if (DNS_CODES.has(code)) return { kind: 'DNS', code };
      if (REFUSED_CODES.has(code)) return { kind: 'refused', code };
      if (TIMEOUT_CODES.has(code)) return { kind: 'timeout', code };
      if (TLS_CODE.test(code)) return { kind: 'TLS', code };
    }
    if (name === 'TimeoutError') return { kind: 'timeout', code: 'timeout' };
  }
  const code = (error as { code?: unknown }).code;
  return { kind: 'network', code: typeof code === 'string' ? code : undefined };
}

/**
 * `cannot reach HOST: DNS: the name does not resolve (ENOTFOUND); try …`. `hint` adds a
 * command-specific thing to try for the failures that a different address would cure,
 * and names the server meant to answer there (default: the Tether host).
 */
export function describeNetworkFailure(
  target: string,
  error: unknown,
  hint: { otherAddress?: string; server?: string } = {},
): string {
  const failure = classifyNetworkError(error);
  const code = failure.code === undefined ? '' : ` (${failure.code})`;
  const host = hostOf(target);
  const other = hint.otherAddress === undefined ? '' : `, or ${hint.otherAddress}`;
  switch (failure.kind) {
    case 'DNS':
      return `cannot reach ${target}: DNS: the name ${host} does not resolve${code}; check the name${host.endsWith('.local') ? ' (a .local name resolves only on the same network, through mDNS)' : ''}${other}`;
    case 'refused':
      return `cannot reach ${target}: refused: nothing answers at that address and port${code}; check that ${hint.server === undefined ? `the host is running (${tetherCommand()} start)` : `${hint.server} is running there`} and the port${other}`;
    case 'timeout':
      return `cannot reach ${target}: timeout: no answer in time${code}; check that this device is on the host's network and no firewall blocks the port${other}`;
    case 'TLS':
      return `cannot reach ${target}: TLS: the secure connection failed${code}: the certificate is not trusted or does not match, or the host serves plain HTTP; trust the host's CA (docs/https.md) or use its http:// address${other}`;
    case 'network': {
      const inner = chain(error).at(-1);
      const why = failure.code ?? errorMessage(inner);
      return `cannot reach ${target}: ${why}; check the network${other}`;
    }
  }
}

function hostOf(target: string): string {
  try {
    return new URL(target).hostname;
  } catch {
    return target;
  }
}
