/**
 * The pairing link shown as a QR code: `<origin>/#pair=b64u(offerId ‖ psk ‖ hostPk)`
 * (docs/protocol.md §3).
 */
import { b64u, concatBytes, fromB64u, TetherError } from '../protocol/index.js';

/** What a device learns from scanning: where the host is, the offer, and who the host is. */
export interface PairLink {
  /** The host origin to open `/v1/ws` on, e.g. `https://mac-mini.local:8443`. */
  origin: string;
  /** b64u of the 16-byte offer id, as sent in `pair.offer`. */
  offerId: string;
  /** 32-byte pre-shared key. */
  psk: Uint8Array;
  /** The host's Ed25519 public key: the challenge signature must verify against it. */
  hostPk: Uint8Array;
}

const FRAGMENT_PREFIX = '#pair=';
const LINK_BYTES = 16 + 32 + 32;

/** True for an http(s) origin written exactly as `URL#origin` writes it (no trailing slash). */
export function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text;
  } catch {
    return false;
  }
}

/** `pair=b64u(offerId ‖ psk ‖ hostPk)`: the fragment of the link (107 characters after `pair=`). */
export function pairLinkFragment(offerId: string, psk: Uint8Array, hostPk: Uint8Array): string {
  const bytes = concatBytes(fromB64u(offerId), psk, hostPk);
  if (bytes.length !== LINK_BYTES) throw new RangeError('offerId, psk or hostPk has a wrong size');
  return 'pair=' + b64u(bytes);
}

/** `<origin>/#pair=…`. */
export function formatPairLink(link: PairLink): string {
  if (!isOrigin(link.origin)) throw new TypeError(`not an http(s) origin: ${link.origin}`);
  return `${link.origin}/#${pairLinkFragment(link.offerId, link.psk, link.hostPk)}`;
}

/**
 * Parses a scanned link. Throws `invalid_request` unless it is an http(s) origin with an
 * empty path, no query and no credentials, and a fragment of exactly `pair=` and 80 bytes.
 */
export function parsePairLink(text: string): PairLink {
  const invalid = (why: string) =>
    new TetherError('invalid_request', `not a Tether pairing link: ${why}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('not http(s)');
  if (url.username !== '' || url.password !== '') throw invalid('has credentials');
  if (url.pathname !== '/' || url.search !== '') throw invalid('has a path or query');
  if (!url.hash.startsWith(FRAGMENT_PREFIX)) throw invalid('no pair fragment');
  let bytes: Uint8Array;
  try {
    bytes = fromB64u(url.hash.slice(FRAGMENT_PREFIX.length));
  } catch {
    throw invalid('fragment is not base64url');
  }
  if (bytes.length !== LINK_BYTES) throw invalid(`fragment holds ${bytes.length} bytes, not 80`);
  return {
    origin: url.origin,
    offerId: b64u(bytes.subarray(0, 16)),
    psk: bytes.slice(16, 48),
    hostPk: bytes.slice(48, 80),
  };
}
