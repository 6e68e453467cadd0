/**
 * An in-memory WebSocket pair: the client's end satisfies WebSocketLike, the host's end is
 * driven by the fake host. Frames are delivered in order, each in its own microtask, as a
 * real socket delivers each in its own task.
 */
import type { WebSocketLike } from '../../remote/client/testing.js';

type Handler<E> = ((event: E) => void) | null;

/** The host's view of one socket. */
export interface HostEnd {
  receive(data: string | Uint8Array): void;
  closedByClient(code: number): void;
}

export class FakeSocket implements WebSocketLike {
  binaryType = 'blob';
  readyState = 0;
  onopen: Handler<unknown> = null;
  onmessage: Handler<{ data: unknown }> = null;
  onclose: Handler<{ code: number; reason: string }> = null;
  onerror: Handler<unknown> = null;
  /** Every frame the client sent, in order. */
  readonly sent: (string | Uint8Array)[] = [];
  host: HostEnd | undefined;
  private hostClosing = false;

  /** Opens the socket (a reachable host) in a later microtask. */
  accept(host: HostEnd): void {
    this.host = host;
    queueMicrotask(() => {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this.onopen?.({});
    });
  }

  send(data: string | Uint8Array): void {
    if (this.readyState !== 1) throw new Error('socket is not open');
    const copy = typeof data === 'string' ? data : data.slice();
    this.sent.push(copy);
    queueMicrotask(() => {
      if (this.readyState === 1) this.host?.receive(copy);
    });
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState >= 2) return;
    this.readyState = 3;
    queueMicrotask(() => {
      this.host?.closedByClient(code);
      this.onclose?.({ code, reason });
    });
  }

  /** Host → client. Binary frames arrive as ArrayBuffers, as with binaryType 'arraybuffer'. */
  deliver(data: string | Uint8Array): void {
    if (this.readyState !== 1 || this.hostClosing) return;
    const payload = typeof data === 'string' ? data : data.slice().buffer;
    queueMicrotask(() => {
      if (this.readyState === 1) this.onmessage?.({ data: payload });
    });
  }

  /** The host closes (or the network drops: 1006) after the frames already on their way. */
  hostClose(code: number, reason = ''): void {
    if (this.readyState === 3 || this.hostClosing) return;
    this.hostClosing = true;
    queueMicrotask(() => {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.onclose?.({ code, reason });
    });
  }
}
