/**
 * The fake host's end of one socket: handshake with the real pairing/ state machines,
 * then sealed frames, requests and subscriptions.
 */
import { CloseCode, type Event, PairMessage, TetherError } from '../../protocol/index.js';
import {
  acceptHello,
  acceptPair,
  type FrameCipher,
  handshakeErrorFrame,
  type HostPairing,
  type Identity,
  type PairOffer,
} from '../../pairing/index.js';
import { type KnownDevice } from '../../pairing/testing.js';
import type { FakeSocket, HostEnd } from './fake-socket.js';

/** What a socket's end needs from the fake host (FakeHost is one). */
export interface HostCore {
  readonly identity: Identity;
  readonly hostName: string;
  readonly instance: string;
  readonly answerPings: boolean;
  pings: number;
  readonly replayWindow: number;
  readonly offers: Map<string, PairOffer>;
  readonly devices: Map<string, KnownDevice & { name: string }>;
  readonly log: Event[];
  readonly requests: { op: string; args: Record<string, unknown> }[];
  readonly sides: Set<HostSide>;
  lastSas: string | undefined;
  onSubscribed: (() => void) | undefined;
  handle(op: string, args: Record<string, unknown>, deviceId: string): object;
  snapshot(): object;
}

interface Sub {
  scope: { runId?: string; sessionId?: string };
  lastSeq: number;
}

let connections = 0;

export class HostSide implements HostEnd {
  readonly id = `conn_${++connections}`;
  readonly subs = new Map<string, Sub>();
  private phase: 'handshake' | 'pairing' | 'open' | 'closed' = 'handshake';
  private pairing: HostPairing | undefined;
  private cipher: FrameCipher | undefined;
  private deviceId = '';
  private nextSub = 1;

  constructor(
    private readonly host: HostCore,
    readonly socket: FakeSocket,
  ) {
    host.sides.add(this);
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  receive(data: string | Uint8Array): void {
    try {
      if (this.phase === 'open') return this.frame(data);
      if (typeof data !== 'string') throw new TetherError('protocol_error', 'binary handshake');
      if (this.phase === 'pairing') return this.confirm(data);
      const value: unknown = JSON.parse(data);
      if (PairMessage.safeParse(value).success) return this.pair(value);
      this.hello(value);
    } catch (error) {
      this.fail(TetherError.from(error));
    }
  }

  closedByClient(): void {
    this.phase = 'closed';
    this.host.sides.delete(this);
  }

  /** Sends `message` sealed; for tests that push previews, lagged, or malformed frames. */
  send(message: object): void {
    if (this.cipher === undefined || !this.isOpen) return;
    this.socket.deliver(this.cipher.seal(message));
  }

  drop(code: number): void {
    this.phase = 'closed';
    this.host.sides.delete(this);
    this.socket.hostClose(code);
  }

  /** Delivers a committed event to every subscription whose scope holds it. */
  publish(event: Event): void {
    for (const [sub, state] of this.subs) {
      if (state.scope.runId !== undefined && state.scope.runId !== event.runId) continue;
      if (state.lastSeq >= event.seq) continue;
      state.lastSeq = event.seq;
      this.send({ t: 'events', sub, events: [event] });
    }
  }

  private pair(frame: unknown): void {
    const accepted = acceptPair(frame, {
      identity: this.host.identity,
      hostName: this.host.hostName,
      now: Date.now(),
      lookupOffer: (offerId) => this.host.offers.get(offerId),
    });
    if (!accepted.ok) return this.fail(accepted.error);
    this.pairing = accepted.pairing;
    this.phase = 'pairing';
    this.socket.deliver(JSON.stringify(accepted.challenge));
  }

  private confirm(text: string): void {
    const confirmed = this.pairing!.confirm(text);
    if (!confirmed.ok) return this.fail(confirmed.error);
    const offer = this.host.offers.get(confirmed.offerId)!;
    if (offer.used) return this.fail(new TetherError('pair_failed', 'pairing failed'));
    offer.used = true;
    const { deviceId, devicePk, name } = confirmed.device;
    this.host.devices.set(deviceId, { devicePk, revoked: false, name });
    this.host.lastSas = confirmed.sas;
    this.socket.deliver(JSON.stringify(confirmed.paired));
    this.drop(CloseCode.normal);
  }

  private hello(frame: unknown): void {
    const hello = acceptHello(frame, {
      identity: this.host.identity,
      lookupDevice: (deviceId) => this.host.devices.get(deviceId),
      connectionId: this.id,
      instanceId: this.host.instance,
    });
    if (!hello.ok) return this.fail(hello.error);
    this.deviceId = hello.deviceId;
    this.cipher = hello.cipher;
    this.socket.deliver(JSON.stringify(hello.welcome));
    this.phase = 'open';
  }

  private frame(data: string | Uint8Array): void {
    const message = this.cipher!.openFrame(data, typeof data !== 'string') as {
      t: string;
      id: string;
      op: string;
      args: Record<string, unknown>;
    };
    if (message.t === 'ping') {
      this.host.pings += 1;
      if (this.host.answerPings) this.send({ t: 'pong' });
      return;
    }
    let followUp: (() => void) | undefined;
    try {
      let result: object;
      if (message.op === 'subscribe') {
        this.host.requests.push({ op: message.op, args: message.args });
        ({ result, followUp } = this.subscribe(message.args));
      } else if (message.op === 'unsubscribe') {
        this.subs.delete(message.args['sub'] as string);
        result = {};
      } else {
        result = this.host.handle(message.op, message.args, this.deviceId);
      }
      this.send({ t: 'res', id: message.id, ok: true, result });
    } catch (error) {
      this.send({ t: 'res', id: message.id, ok: false, error: TetherError.from(error).toWire() });
    }
    followUp?.();
    if (message.op === 'subscribe') this.host.onSubscribed?.();
  }

  private subscribe(args: Record<string, unknown>): { result: object; followUp: () => void } {
    const sub = `sub_${this.nextSub++}`;
    const scope = (args['scope'] ?? {}) as Sub['scope'];
    const head = this.host.log.length;
    const afterSeq = args['afterSeq'] as number | undefined;
    const replay = afterSeq !== undefined && head - afterSeq <= this.host.replayWindow;
    const cursor = replay ? afterSeq : head;
    this.subs.set(sub, { scope, lastSeq: cursor });
    const result = {
      sub,
      mode: replay ? 'replay' : 'snapshot',
      cursor,
      ...(replay ? {} : { snapshot: this.host.snapshot() }),
    };
    return {
      result,
      followUp: () => {
        const state = this.subs.get(sub)!;
        const events = this.host.log.filter(
          (event) =>
            event.seq > cursor && (scope.runId === undefined || event.runId === scope.runId),
        );
        if (events.length === 0) return;
        state.lastSeq = events.at(-1)!.seq;
        this.send({ t: 'events', sub, events });
      },
    };
  }

  private fail(error: TetherError): void {
    if (this.phase !== 'open') this.socket.deliver(JSON.stringify(handshakeErrorFrame(error)));
    this.drop(error.closeCode ?? CloseCode.protocolError);
  }
}
