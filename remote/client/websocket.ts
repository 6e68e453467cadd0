/**
 * The WebSocket the client core drives, injected so the core runs anywhere: the browser's
 * `WebSocket` and the `ws` package's both satisfy {@link WebSocketLike} as they are.
 */

/** A handler whose parameter is checked both ways, so `(ev: MessageEvent) => any` fits. */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/** The part of a WebSocket the client uses. */
export interface WebSocketLike {
  /** The core sets `'arraybuffer'` before the socket opens. */
  binaryType: string;
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued but not yet sent, where the implementation reports it (for UIs). */
  readonly bufferedAmount?: number;
  onopen: Handler<unknown> | null;
  /** `data` is a string for a text frame and an ArrayBuffer (or Uint8Array) for a binary one. */
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
}

/** Opens a socket to `url` (`ws://…/v1/ws` or `wss://…/v1/ws`). */
export type WebSocketFactory = (url: string) => WebSocketLike;

/** The channel endpoint of a host origin: `https://h:8443` → `wss://h:8443/v1/ws`. */
export function channelUrl(origin: string): string {
  const url = new URL('/v1/ws', origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
