/**
 * A paired device with as little of its own as the protocol allows, for benches that time
 * the host: a raw `ws` socket, the pairing and channel handshakes of pairing/, libsodium
 * frames, and requests and events handled without the client core (no outbox, no state
 * folding, no schema of the host's answers). Its costs are the floor any device pays.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import {
  type ChannelCrypto,
  createIdentity,
  type FrameCipher,
  openChannel,
  type PairedHost,
  parsePairLink,
  startPairing,
} from '../pairing/index.js';
import { nativeChannelCrypto } from '../pairing/node/index.js';

const crypto: ChannelCrypto = nativeChannelCrypto().crypto;

/** A socket whose text frames are read one at a time. */
export function openSocket(
  url: string,
): Promise<{ socket: WebSocket; next: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws') + '/v1/ws');
    const frames: string[] = [];
    const waiting: ((frame: string) => void)[] = [];
    socket.on('message', (data: Buffer) => {
      const waiter = waiting.shift();
      if (waiter) waiter(data.toString());
      else frames.push(data.toString());
    });
    socket.once('open', () =>
      resolve({
        socket,
        next: () =>
          frames.length > 0
            ? Promise.resolve(frames.shift()!)
            : new Promise((done) => waiting.push(done)),
      }),
    );
    socket.once('error', reject);
  });
}

/** Pairs a new device through `link` (an offer of the host at `url`). */
export async function pairDevice(url: string, link: string): Promise<PairedHost> {
  const { socket, next } = await openSocket(url);
  const { pair: frame, pairing } = startPairing({
    link: parsePairLink(link),
    identity: createIdentity(),
    name: 'bench device',
    platform: 'bench',
  });
  socket.send(JSON.stringify(frame));
  const challenge = pairing.receiveChallenge(await next());
  if (!challenge.ok) throw challenge.error;
  socket.send(JSON.stringify(challenge.confirm));
  const paired = pairing.receivePaired(await next());
  if (!paired.ok) throw paired.error;
  socket.close();
  return paired.host;
}

interface Answer {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
}

/** A fresh command id (16-64 characters). */
export const commandId = (): string => randomBytes(12).toString('base64url');

/** An open channel of a paired device: requests one at a time or overlapping, and events. */
export class LeanChannel {
  private nextId = 1;
  private readonly pending = new Map<string, (answer: Answer) => void>();
  /** Called with each `events` frame's events, as they arrive. */
  onEvents: (events: { type: string; seq: number }[]) => void = () => undefined;
  /** Bytes of the last frame sent and of the last one received. */
  sentBytes = 0;
  receivedBytes = 0;

  private constructor(
    private readonly socket: WebSocket,
    private readonly cipher: FrameCipher,
  ) {
    socket.on('message', (data: Buffer, isBinary) => {
      this.receivedBytes = data.length;
      const message = cipher.openFrame(new Uint8Array(data), isBinary) as {
        t: string;
        id?: string;
        events?: { type: string; seq: number }[];
      } & Answer;
      if (message.t === 'res' && message.id !== undefined) {
        const done = this.pending.get(message.id);
        this.pending.delete(message.id);
        done?.(message);
      } else if (message.t === 'events') {
        this.onEvents(message.events ?? []);
      }
    });
  }

  static async open(record: PairedHost): Promise<LeanChannel> {
    const { socket, next } = await openSocket(record.origin);
    const { hello, channel } = openChannel(record, { crypto });
    socket.send(JSON.stringify(hello));
    const welcome = channel.receiveWelcome(await next());
    if (!welcome.ok) throw welcome.error;
    socket.removeAllListeners('message');
    return new LeanChannel(socket, welcome.cipher);
  }

  /** Sends one request; resolves with its result, rejects with the host's error. */
  request(op: string, args: object): Promise<unknown> {
    const id = String(this.nextId++);
    const answered = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, (answer) => {
        if (answer.ok) resolve(answer.result);
        else reject(new Error(`${op}: ${answer.error?.code} ${answer.error?.message}`));
      });
    });
    const frame = this.cipher.seal({ t: 'req', id, op, args });
    this.sentBytes = frame.length;
    this.socket.send(frame);
    return answered;
  }

  /** Resolves once the socket closed. */
  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.close();
    return closed;
  }
}
