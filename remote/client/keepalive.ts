/**
 * Liveness of an open channel (docs/protocol.md §6): `ping` after 15 s without traffic,
 * give up when nothing arrived for 40 s. One timer, re-armed only when it fires.
 */
import type { TimerHandle, Timers } from './timers.js';

export interface KeepaliveSettings {
  /** Send `ping` after this long without a frame either way; default 15 s. */
  pingAfterMs: number;
  /** Declare the connection dead after this long without a received frame; default 40 s. */
  deadAfterMs: number;
}

/** docs/protocol.md §6: ping after 15 s, give up after 40 s. */
export const DEFAULT_KEEPALIVE: KeepaliveSettings = { pingAfterMs: 15_000, deadAfterMs: 40_000 };

/** Pings and dead-link detection for one channel, from when it is made until {@link Keepalive.stop}. */
export class Keepalive {
  private lastSent: number;
  private lastReceived: number;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly settings: KeepaliveSettings,
    private readonly ping: () => void,
    private readonly dead: () => void,
  ) {
    this.lastSent = this.lastReceived = timers.now();
    this.arm();
  }

  sent(): void {
    this.lastSent = this.timers.now();
  }

  received(): void {
    this.lastReceived = this.timers.now();
  }

  stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const now = this.timers.now();
    const deadAt = this.lastReceived + this.settings.deadAfterMs;
    if (now >= deadAt) {
      this.timer = undefined;
      this.dead();
      return;
    }
    let pingAt = Math.max(this.lastSent, this.lastReceived) + this.settings.pingAfterMs;
    if (now >= pingAt) {
      this.ping();
      pingAt = now + this.settings.pingAfterMs;
    }
    this.timer = this.timers.setTimeout(() => this.arm(), Math.min(pingAt, deadAt) - now);
  }
}
