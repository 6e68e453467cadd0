/**
 * Who is on the other end of a request: the socket's address, or behind a loopback
 * reverse proxy (`tailscale serve`), the address it forwarded.
 */
import type { IncomingMessage } from 'node:http';

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * The client's address for rate limits. Only a loopback peer (a local proxy) is trusted
 * to name another address, and only its own entry (the rightmost) is believed.
 */
export function clientAddress(request: IncomingMessage): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (!isLoopbackAddress(peer)) return peer;
  const forwarded = request.headers['x-forwarded-for'];
  const header = Array.isArray(forwarded) ? forwarded.at(-1) : forwarded;
  const last = header?.split(',').at(-1)?.trim();
  return last !== undefined && last.length > 0 ? last : peer;
}
