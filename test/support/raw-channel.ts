/**
 * A bare protocol peer for tests: pairs and opens channels with the pairing/ state
 * machines over a real `ws` socket, with no reconnects or retries to hide what happened.
 */
import WebSocket from 'ws';
import { HostMessage } from '../../protocol/index.js';
import { HostHandshakeMessage } from '../../protocol/testing.js';
import {
  createIdentity,
  openChannel,
  parsePairLink,
  startPairing,
  type FrameCipher,
  type Identity,
  type PairedHost,
} from '../../pairing/index.js';

export interface Closed {
  code: number;
  reason: string;
}

/** A socket whose frames can be awaited one by one. */
export class RawSocket {
  readonly socket: WebSocket;
  readonly closed: Promise<Closed>;
  private readonly frames: { data: Buffer; isBinary: boolean }[] = [];
  private waiter: (() => void) | null = null;

  private constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data: Buffer, isBinary) => {
      this.frames.push({ data, isBinary });
      this.waiter?.();
    });
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.waiter?.();
      });
    });
    this.socket.on('error', () => undefined);
  }

  static async open(origin: string): Promise<RawSocket> {
    const raw = new RawSocket(origin.replace(/^http/, 'ws') + '/v1/ws');
    await new Promise<void>((resolve, reject) => {
      raw.socket.once('open', () => resolve());
      raw.socket.once('error', reject);
    });
    return raw;
  }

  /** Terminates the socket (no closing handshake) and waits for it to be closed. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
    await this.closed;
  }

  sendText(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The next frame, or undefined when the socket closed first. */
  async next(timeoutMs = 5000): Promise<{ data: Buffer; isBinary: boolean } | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.socket.readyState === WebSocket.CLOSED) return undefined;
      if (Date.now() > deadline) throw new Error('no frame in time');
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
      this.waiter = null;
    }
    return this.frames.shift();
  }

  async nextText(timeoutMs?: number): Promise<HostHandshakeMessage | undefined> {
    const frame = await this.next(timeoutMs);
    if (frame === undefined) return undefined;
    return HostHandshakeMessage.parse(JSON.parse(frame.data.toString('utf8')));
  }
}

/** Pairs a new device identity with the host through `link`. */
export async function pairDevice(
  link: string,
  identity: Identity = createIdentity(),
): Promise<{ host: PairedHost; sas: string; identity: Identity }> {
  const origin = new URL(link).origin;
  const socket = await RawSocket.open(origin);
  const { pair, pairing } = startPairing({
    link: parsePairLink(link),
    identity,
    name: 'Test device',
    platform: 'node',
  });
  socket.sendText(pair);
  const challenge = pairing.receiveChallenge(await socket.nextText());
  if (!challenge.ok) throw challenge.error;
  socket.sendText(challenge.confirm);
  const paired = pairing.receivePaired(await socket.nextText());
  if (!paired.ok) throw paired.error;
  const closed = await socket.closed;
  if (closed.code !== 1000) throw new Error(`pairing closed with ${closed.code}`);
  return { host: paired.host, sas: paired.sas, identity };
}

/** An open channel: requests in, host messages out, decrypted and validated. */
export class RawChannel {
  private nextId = 1;

  constructor(
    readonly socket: RawSocket,
    readonly cipher: FrameCipher,
    readonly instance: string,
  ) {}

  static async open(host: PairedHost): Promise<RawChannel> {
    const socket = await RawSocket.open(host.origin);
    const { hello, channel } = openChannel(host);
    socket.sendText(hello);
    const welcome = channel.receiveWelcome(await socket.nextText());
    if (!welcome.ok) throw welcome.error;
    return new RawChannel(socket, welcome.cipher, welcome.instanceId);
  }

  /** Terminates its socket, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.socket[Symbol.asyncDispose]();
  }

  send(message: object): void {
    this.socket.socket.send(this.cipher.seal(message));
  }

  /** The next host message, or undefined when the socket closed. */
  async receive(timeoutMs?: number): Promise<HostMessage | undefined> {
    const frame = await this.socket.next(timeoutMs);
    if (frame === undefined) return undefined;
    return this.cipher.openFrame(new Uint8Array(frame.data), frame.isBinary, HostMessage);
  }

  /** Sends a request and returns its result; a failed answer throws with its code. */
  async call(op: string, args: object = {}): Promise<Record<string, unknown>> {
    const answer = await this.request(op, args);
    if (!answer.ok) throw new Error(`${op} failed: ${answer.error.code}: ${answer.error.message}`);
    return answer.result;
  }

  /** Sends a request and returns its answer, keeping other messages for `others`. */
  readonly others: HostMessage[] = [];
  async request(op: string, args: object = {}): Promise<HostMessage & { t: 'res' }> {
    const id = String(this.nextId++);
    this.send({ t: 'req', id, op, args });
    for (;;) {
      const message = await this.receive();
      if (message === undefined) throw new Error(`closed before the answer to ${op}`);
      if (message.t === 'res' && message.id === id) return message;
      this.others.push(message);
    }
  }
}
