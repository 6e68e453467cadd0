/**
 * One socket as a sequence of frames: pulled one at a time during a handshake
 * ({@link FrameSocket.next}), pushed to a listener once a channel is open.
 */
import { MAX_FRAME_BYTES, TetherError } from '../../protocol/index.js';
import { closeError } from './close-codes.js';
import type { Timers } from './timers.js';
import type { WebSocketFactory, WebSocketLike } from './websocket.js';

/** `readyState` of an open socket. */
const OPEN = 1;

/** A received frame: text before a channel opens, binary after. */
export type IncomingFrame = { binary: false; data: string } | { binary: true; data: Uint8Array };

/** How a socket ended: the close code (undefined when it never opened) and what it means. */
export interface SocketEnd {
  code: number | undefined;
  error: TetherError;
}

interface FrameListener {
  frame(frame: IncomingFrame): void;
  end(end: SocketEnd): void;
}

/** A {@link WebSocketLike} as frames in order, and one end: close code and meaning. */
export class FrameSocket {
  /** Resolves once the socket is open; rejects if it ends first. */
  readonly opened: Promise<void>;
  private readonly queue: IncomingFrame[] = [];
  private waiter: { resolve(frame: IncomingFrame): void; reject(error: Error): void } | undefined;
  private listener: FrameListener | undefined;
  private ended: SocketEnd | undefined;
  private wasOpen = false;
  private failOpen!: (error: Error) => void;

  constructor(private readonly socket: WebSocketLike) {
    socket.binaryType = 'arraybuffer';
    this.opened = new Promise((resolve, reject) => {
      this.failOpen = reject;
      socket.onopen = () => {
        this.wasOpen = true;
        resolve();
      };
    });
    // A failed open is also reported through next() or the listener; nobody need await it.
    this.opened.catch(() => undefined);
    socket.onerror = () => undefined;
    socket.onclose = (event) => {
      const code = this.wasOpen ? event.code : undefined;
      this.finish({ code, error: closeError(event.code, event.reason) });
    };
    socket.onmessage = (event) => this.receive(event.data);
  }

  /** How the socket ended, once it has. */
  get end(): SocketEnd | undefined {
    return this.ended;
  }

  /** The next frame; rejects with the socket's end error once it has ended. */
  next(): Promise<IncomingFrame> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended !== undefined) return Promise.reject(this.ended.error);
    if (this.waiter !== undefined) throw new Error('next() while another next() is pending');
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Hands every queued and later frame to `listener`, synchronously and in order. */
  listen(listener: FrameListener): void {
    this.listener = listener;
    for (let frame = this.queue.shift(); frame !== undefined; frame = this.queue.shift()) {
      listener.frame(frame);
    }
    if (this.ended !== undefined) listener.end(this.ended);
  }

  send(data: string | Uint8Array): void {
    if (this.ended !== undefined) throw this.ended.error;
    // Closing, its close event not yet come (the host went away): a browser would drop the
    // frame, saying so on the console; the caller hears the connection is gone instead.
    if (this.socket.readyState !== OPEN) {
      throw new TetherError('unavailable', 'the connection is closing');
    }
    this.socket.send(data);
  }

  /**
   * Closes from this side. The socket counts as ended at once, with `error` (by default
   * what `code` means), without waiting for the peer, which may be gone.
   */
  close(code: number, reason = '', error: TetherError = closeError(code, reason)): void {
    if (this.ended !== undefined) return;
    try {
      // Browsers accept only 1000 and 3000-4999 from a script.
      this.socket.close(code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000, reason);
    } catch {
      // Already closing, or a code this implementation refuses: the socket is ours to drop.
    }
    this.finish({ code: this.wasOpen ? code : undefined, error });
  }

  private receive(data: unknown): void {
    if (this.ended !== undefined) return;
    const frame = toFrame(data);
    if (frame === undefined) {
      this.close(4400, 'frame too large or of an unknown kind');
      return;
    }
    if (this.listener !== undefined) {
      this.listener.frame(frame);
      return;
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter !== undefined) waiter.resolve(frame);
    else this.queue.push(frame);
  }

  private finish(end: SocketEnd): void {
    if (this.ended !== undefined) return;
    this.ended = end;
    if (!this.wasOpen) this.failOpen(end.error);
    const { socket } = this;
    socket.onopen = socket.onmessage = socket.onclose = null;
    socket.onerror = () => undefined;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(end.error);
    this.listener?.end(end);
  }
}

function toFrame(data: unknown): IncomingFrame | undefined {
  if (typeof data === 'string') {
    // UTF-16 length ≤ UTF-8 length, so this only lets through what might fit.
    return data.length > MAX_FRAME_BYTES ? undefined : { binary: false, data };
  }
  const bytes =
    data instanceof Uint8Array
      ? data
      : data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : undefined;
  if (bytes === undefined || bytes.length > MAX_FRAME_BYTES) return undefined;
  return { binary: true, data: bytes };
}

/** Options every handshake over a fresh socket takes. */
export interface HandshakeOptions {
  socketFactory: WebSocketFactory;
  timers: Timers;
  /** The whole handshake, from the socket's creation; default 10 s as on the host. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A handshake's time limit, as on the host (docs/protocol.md §2). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * Opens a socket to `url` and runs `steps` on it within the timeout. On failure the socket
 * is closed with the error's close code and the error thrown; on success it stays open.
 */
export async function handshake<T>(
  url: string,
  options: HandshakeOptions,
  steps: (socket: FrameSocket) => Promise<T>,
): Promise<T> {
  const { timers, signal, timeoutMs = HANDSHAKE_TIMEOUT_MS } = options;
  signal?.throwIfAborted();
  const socket = new FrameSocket(options.socketFactory(url));
  const timer = timers.setTimeout(() => {
    socket.close(
      4408,
      'handshake timeout',
      new TetherError('handshake_timeout', 'handshake timed out'),
    );
  }, timeoutMs);
  const onAbort = () => socket.close(1000, 'aborted');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await socket.opened;
    return await steps(socket);
  } catch (error) {
    const failure = signal?.aborted ? (signal.reason as Error) : TetherError.from(error);
    socket.close(failure instanceof TetherError ? (failure.closeCode ?? 1000) : 1000);
    throw failure;
  } finally {
    timers.clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The text of a handshake frame; a binary frame before the channel opens is a protocol error. */
export function handshakeText(frame: IncomingFrame): string {
  if (frame.binary) throw new TetherError('protocol_error', 'binary frame during a handshake');
  return frame.data;
}
