/**
 * The bounds that keep the channel from being used to burn the host (issue 11): how many
 * handshakes may start and be in progress, how many channels a device may hold, how soon
 * a welcomed channel must prove its keys, and how long the HTTP server waits for a request.
 */
import type { RateLimit } from './rate-limiter.js';

export interface ChannelLimits {
  /**
   * Handshakes in progress from one address; more are closed at once with 4429
   * (docs/protocol.md §2).
   */
  handshakesInProgressPerAddress: number;
  /** Handshakes started from one address, each socket one; beyond, 4429 before any frame is read. */
  handshakesPerAddress: RateLimit;
  /** Hellos naming one paired device; beyond, 4429 before its signature is checked. */
  hellosPerDevice: RateLimit;
  /**
   * Open channels per device. A hello past it takes the place of the device's oldest
   * channel that has not yet sent a valid frame; when every one has, it is refused (4429).
   */
  channelsPerDevice: number;
  /** From the upgrade to `welcome` (4408 after). */
  handshakeTimeoutMs: number;
  /**
   * From `welcome` to the first frame that decrypts (4408 after): a replayed hello gets a
   * welcome but can never send one. Until then the device's last seen is not updated.
   */
  firstFrameTimeoutMs: number;
  /** A refusal is logged once per reason and address in this interval; the rest are counted. */
  refusalLogIntervalMs: number;
}

/** Limits of the HTTP server, before any WebSocket upgrade. */
export interface HttpLimits {
  /** TCP connections open at once from one address (channels included); more are closed at once. */
  connectionsPerAddress: number;
  /** Time for a request's headers to arrive (Node's `headersTimeout`); then 408 and close. */
  headersTimeoutMs: number;
  /** Time for a whole request to arrive (Node's `requestTimeout`). */
  requestTimeoutMs: number;
}

export const DEFAULT_CHANNEL_LIMITS: ChannelLimits = {
  handshakesInProgressPerAddress: 16,
  handshakesPerAddress: { burst: 60, perMinute: 60 },
  hellosPerDevice: { burst: 20, perMinute: 60 },
  channelsPerDevice: 8,
  handshakeTimeoutMs: 10_000,
  firstFrameTimeoutMs: 10_000,
  refusalLogIntervalMs: 60_000,
};

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  connectionsPerAddress: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
};

/** "retry in 3 s": what a rate-limited peer is told, rounded up to whole seconds. */
export function retryIn(ms: number): string {
  return `retry in ${Math.max(1, Math.ceil(ms / 1000))} s`;
}
