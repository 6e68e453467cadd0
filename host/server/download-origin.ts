/**
 * Which origin a remote reached the host on, and whether download links may be served
 * there (docs/protocol.md §6.2 `download.link`: HTTPS or loopback origins only).
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackAddress } from './client-address.js';

/** What the host knows about the origin of one request or WebSocket upgrade. */
export interface RequestOrigin {
  /** The origin the remote used (`https://mac.local:8443`), or null when it cannot be told. */
  url: string | null;
  /** TLS to this host, or a loopback proxy (`tailscale serve`) that says the remote used https. */
  secure: boolean;
  /** A loopback peer naming a loopback `Host` (localhost, 127.0.0.1, [::1]). */
  loopback: boolean;
}

const HOST_VALUE = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]{0,252}))(?::\d{1,5})?$/i;
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  // A proxy appends its own entry last; only that one is its own word.
  const last = (Array.isArray(value) ? value.at(-1) : value)?.split(',').at(-1)?.trim();
  return last === undefined || last === '' ? undefined : last;
}

function validHost(value: string | undefined): string | undefined {
  return value !== undefined && HOST_VALUE.test(value) ? value.toLowerCase() : undefined;
}

/** An `https://host[:port]` Origin header, as an origin string, or undefined. */
function httpsOrigin(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && validHost(url.host) !== undefined ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The origin of `request`. TLS is secure on whatever `Host` it names. Behind a loopback
 * reverse proxy (`tailscale serve`), the proxy's `X-Forwarded-Proto: https`, or a
 * browser's `Origin: https://…` naming the forwarded or given host, makes it secure on
 * that host. Only a loopback peer is believed about forwarding.
 */
export function requestOrigin(request: IncomingMessage): RequestOrigin {
  const host = validHost(header(request, 'host'));
  const tls = (request.socket as { encrypted?: boolean }).encrypted === true;
  if (tls)
    return { url: host === undefined ? null : `https://${host}`, secure: true, loopback: false };
  const peerLoopback = isLoopbackAddress(request.socket.remoteAddress);
  if (peerLoopback) {
    const name = validHost(header(request, 'x-forwarded-host')) ?? host;
    const own = name === undefined ? undefined : httpsOrigin(`https://${name}`);
    // The Origin is the page's: an app served by another host that opens this host's
    // socket sends its own origin, which says nothing about how this host was reached.
    const origin = httpsOrigin(header(request, 'origin'));
    if (
      header(request, 'x-forwarded-proto')?.toLowerCase() === 'https' ||
      (origin !== undefined && origin === own)
    ) {
      return { url: own ?? null, secure: own !== undefined, loopback: false };
    }
  }
  const loopback = peerLoopback && host !== undefined && LOOPBACK_HOST.test(host);
  return { url: host === undefined ? null : `http://${host}`, secure: false, loopback };
}

/** True when download links may be issued for, and served on, `origin`. */
export function servesDownloads(origin: RequestOrigin): boolean {
  return origin.url !== null && (origin.secure || origin.loopback);
}
