/**
 * A frame sent while the socket is closing (the host went away, its close event not yet
 * come) is refused as `unavailable` and never handed to the socket: a browser would drop
 * it and log "WebSocket is already in CLOSING or CLOSED state" on the console.
 */
import { describe, expect, it } from 'vitest';
import { TetherError } from '../../protocol/index.js';
import { FrameSocket, type WebSocketLike } from '../../remote/client/testing.js';

function socket(): WebSocketLike & { sent: unknown[]; readyState: number } {
  const sent: unknown[] = [];
  return {
    binaryType: 'blob',
    readyState: 0,
    onopen: null,
    onmessage: null,
    onclose: null,
    onerror: null,
    sent,
    send: (data) => void sent.push(data),
    close: () => undefined,
  };
}

describe('FrameSocket.send', () => {
  it('sends on an open socket and refuses on a closing one, as unavailable', async () => {
    const raw = socket();
    const frames = new FrameSocket(raw);
    raw.readyState = 1;
    raw.onopen?.({});
    await frames.opened;
    frames.send('first');
    raw.readyState = 2;
    let thrown: unknown;
    try {
      frames.send('second');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TetherError);
    expect((thrown as TetherError).code).toBe('unavailable');
    expect(raw.sent).toEqual(['first']);
  });
});
