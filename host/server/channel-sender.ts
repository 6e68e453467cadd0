/**
 * What an open channel sends, sealed, under byte bounds by priority: answers and control
 * frames first, then committed events, and previews only while the socket holds little.
 */
import type WebSocket from 'ws';
import { TetherError, type HostMessage, type ResponseMessage } from '../../protocol/index.js';
import type { FrameCipher } from '../../pairing/index.js';
import type { Logger } from '../log/index.js';

/** Beyond this many bytes waiting in the socket, previews and output tails are dropped. */
const EPHEMERAL_LIMIT = 256 * 1024;
/** Beyond this, a subscription gets `lagged` and stops instead of queueing more events. */
const DURABLE_LIMIT = 8 * 1024 * 1024;
/** Beyond this (answers piling up unread), the connection is closed. */
const HARD_LIMIT = 32 * 1024 * 1024;

/**
 * `control`: answers, pongs, `lagged`, `status` (dropped only past {@link HARD_LIMIT});
 * `durable`: committed events (past {@link DURABLE_LIMIT} the subscription lags);
 * `ephemeral`: previews and output tails (past {@link EPHEMERAL_LIMIT} they are dropped).
 */
export type Priority = 'control' | 'durable' | 'ephemeral';

export interface ChannelSenderOptions {
  connectionId: string;
  log: Logger;
  /** The remote reads nothing and holds {@link HARD_LIMIT} unread: close its connection. */
  onStalled(): void;
}

/** The sending half of one open channel; sends nothing once closed. */
export class ChannelSender {
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly cipher: FrameCipher,
    private readonly options: ChannelSenderOptions,
  ) {}

  /** False once the channel closed: nothing more goes out. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /**
   * Seals and sends `message` if its priority fits what the socket already holds; false
   * when it was dropped. Nothing is sealed unless sent, so the counters stay in step.
   */
  send(message: HostMessage, priority: Priority): boolean {
    return this.sendJson(JSON.stringify(message), message.t, priority);
  }

  /** {@link ChannelSender.send} of a message already encoded as `json`, of type `t`. */
  sendJson(json: string, t: HostMessage['t'], priority: Priority): boolean {
    if (this.closed) return false;
    const buffered = this.socket.bufferedAmount;
    if (priority === 'ephemeral' && buffered > EPHEMERAL_LIMIT) return false;
    if (priority === 'durable' && buffered > DURABLE_LIMIT) return false;
    if (buffered > HARD_LIMIT) {
      const conn = this.options.connectionId;
      this.options.log.warn('closing a connection that reads nothing', { conn, buffered });
      this.options.onStalled();
      return false;
    }
    try {
      this.socket.send(this.cipher.sealJson(json));
    } catch (error) {
      const failure = TetherError.from(error);
      if (failure.code !== 'payload_too_large') throw error;
      const conn = this.options.connectionId;
      this.options.log.error('message too large for one frame', { conn, t });
      return false;
    }
    return true;
  }

  /**
   * Sends an answer; one too large for a frame (a huge run.get, say) becomes a
   * `payload_too_large` answer rather than none. False when the real answer did not go out.
   */
  sendAnswer(response: ResponseMessage): boolean {
    if (this.send(response, 'control')) return true;
    if (this.closed) return false;
    const error = new TetherError('payload_too_large', 'the answer does not fit in one frame');
    this.send({ t: 'res', id: response.id, ok: false, error: error.toWire() }, 'control');
    return false;
  }

  /** {@link ChannelSender.sendAnswer} of a success whose result is encoded as `resultJson`. */
  sendEncodedAnswer(id: string, resultJson: string): boolean {
    const json = `{"t":"res","id":${JSON.stringify(id)},"ok":true,"result":${resultJson}}`;
    if (this.sendJson(json, 'res', 'control')) return true;
    if (this.closed) return false;
    const error = new TetherError('payload_too_large', 'the answer does not fit in one frame');
    this.send({ t: 'res', id, ok: false, error: error.toWire() }, 'control');
    return false;
  }

  /** From now on nothing is sent (the connection is closing). */
  close(): void {
    this.closed = true;
  }
}
