/**
 * One WebSocket from a remote: the handshake (pairing, or hello/welcome), then encrypted
 * frames carrying requests, subscriptions and live previews, each sent under a byte bound.
 */
import type WebSocket from 'ws';
import {
  CloseCode,
  MAX_FRAME_BYTES,
  RemoteMessage,
  TetherError,
  describeIssues,
  parseRequest,
  type Event,
  type HostMessage,
  type RequestMessage,
  type StatusMessage,
} from '../../protocol/index.js';
import {
  acceptHello,
  acceptPair,
  handshakeErrorFrame,
  type FrameCipher,
  type HostPairing,
  type Identity,
} from '../../pairing/index.js';
import type { Logger } from '../log/index.js';
import type { LiveMessage, Subscription } from '../runtime/index.js';
import type { RequestOrigin } from './download-origin.js';
import type { RefusalLog } from './refusal-log.js';
import { routeRequest, type RouterContext } from './request-router.js';
import { newServerId } from './server-ids.js';

/** Beyond this many bytes waiting in the socket, previews and output tails are dropped. */
export const EPHEMERAL_LIMIT = 256 * 1024;
/** Beyond this, a subscription gets `lagged` and stops instead of queueing more events. */
export const DURABLE_LIMIT = 8 * 1024 * 1024;
/** Beyond this (answers piling up unread), the connection is closed. */
export const HARD_LIMIT = 32 * 1024 * 1024;
/** Events per `events` frame are packed up to about this many bytes of JSON. */
const EVENTS_FRAME_BYTES = 256 * 1024;

type Priority = 'control' | 'durable' | 'ephemeral';

export interface ConnectionContext extends RouterContext {
  identity: Identity;
  log: Logger;
  now: () => number;
  handshakeTimeoutMs: number;
  /** From `welcome` to the first frame that decrypts, else 4408. */
  firstFrameTimeoutMs: number;
  /** One line per refusal reason and address per interval. */
  refusals: RefusalLog;
  /** Before a hello naming this paired device is checked: an error refuses it (rate limit). */
  admitHello(deviceId: string): TetherError | null;
  /** After a hello verified, before `welcome`: an error refuses it (too many channels). */
  admitChannel(deviceId: string): TetherError | null;
  /** Called once the device is known and its channel open (`welcome` sent). */
  onOpen(connection: Connection): void;
  /** Called once the first frame decrypted: the peer holds the channel's keys. */
  onConfirmed(connection: Connection): void;
  /** Called once when the socket is gone, whatever the reason. */
  onClose(connection: Connection): void;
}

interface OpenSubscription {
  subscription: Subscription;
  scope: { runId?: string; sessionId?: string };
  lastSeq: number;
}

// Every connection receives the same event objects from a commit: measure each once.
const eventSizes = new WeakMap<Event, number>();

function eventSize(event: Event): number {
  let size = eventSizes.get(event);
  if (size === undefined) {
    size = JSON.stringify(event).length;
    eventSizes.set(event, size);
  }
  return size;
}

function frameBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  return data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data);
}

export class Connection {
  readonly id = newServerId('conn');
  deviceId: string | null = null;
  /** True once a frame decrypted: the peer holds the keys, not only a replayed hello. */
  confirmed = false;
  private phase: 'handshake' | 'pairing' | 'open' | 'closed' = 'handshake';
  private pairing: HostPairing | null = null;
  private cipher: FrameCipher | null = null;
  private readonly subscriptions = new Map<string, OpenSubscription>();
  private readonly handshakeTimer: NodeJS.Timeout;
  private firstFrameTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly ctx: ConnectionContext,
    readonly address: string,
    /** The origin the remote connected to (for download links). */
    readonly origin: RequestOrigin,
  ) {
    this.handshakeTimer = setTimeout(
      () => this.fail(new TetherError('handshake_timeout', 'the handshake took too long')),
      ctx.handshakeTimeoutMs,
    );
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => this.cleanUp());
    socket.on('error', (error) => {
      ctx.log.debug('socket error', { conn: this.id, error: error.message });
      this.cleanUp();
    });
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /** Closes the socket with `code`; nothing more is sent or received. */
  close(code: number, reason = ''): void {
    if (this.phase === 'closed') return;
    this.cleanUp();
    this.socket.close(code, reason);
  }

  /** A live preview or output tail for a run this connection may be watching. */
  sendLive(message: LiveMessage, runId: string, sessionId: string | null): void {
    if (!this.isOpen) return;
    const watching = [...this.subscriptions.values()].some(({ scope }) =>
      scope.runId !== undefined
        ? scope.runId === runId
        : scope.sessionId === undefined || scope.sessionId === sessionId,
    );
    if (watching) this.send(message, 'ephemeral');
  }

  /** The host's condition (docs/protocol.md, "status"); sent ahead of events and previews. */
  sendStatus(message: StatusMessage): void {
    this.send(message, 'control');
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    try {
      if (this.phase === 'open') return this.receiveFrame(data, isBinary);
      if (this.phase === 'closed') return;
      const bytes = frameBytes(data);
      if (isBinary || bytes.length > MAX_FRAME_BYTES) {
        throw new TetherError(
          'protocol_error',
          'expected a text frame of at most 1 MiB during the handshake',
        );
      }
      this.receiveHandshake(Buffer.from(bytes).toString('utf8'));
    } catch (error) {
      this.fail(TetherError.from(error));
    }
  }

  private receiveHandshake(text: string): void {
    const { ctx } = this;
    if (this.phase === 'pairing') {
      const confirmed = this.pairing!.confirm(text);
      if (!confirmed.ok) return this.failPairing(confirmed.error, confirmed.countAttemptOn);
      if (!ctx.runtime.recordPairedDevice(confirmed.offerId, confirmed.device, confirmed.sas)) {
        return this.fail(new TetherError('pair_failed', 'pairing failed'));
      }
      ctx.log.info('device paired', {
        deviceId: confirmed.device.deviceId,
        name: confirmed.device.name,
        sas: confirmed.sas,
      });
      this.socket.send(JSON.stringify(confirmed.paired));
      return this.close(CloseCode.normal);
    }
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch (cause) {
      throw new TetherError('protocol_error', 'a handshake frame that is not JSON', { cause });
    }
    const kind = (frame as { t?: unknown } | null)?.t;
    if (kind !== 'pair' && kind !== 'hello') {
      throw new TetherError('protocol_error', 'expected a pair or hello frame');
    }
    if (kind === 'pair') {
      const accepted = acceptPair(frame, {
        identity: ctx.identity,
        hostName: ctx.hostName,
        now: ctx.now(),
        lookupOffer: (offerId) => ctx.runtime.findPairOffer(offerId),
      });
      if (!accepted.ok) return this.failPairing(accepted.error, accepted.countAttemptOn);
      this.pairing = accepted.pairing;
      this.phase = 'pairing';
      this.socket.send(JSON.stringify(accepted.challenge));
      return;
    }
    // The rate limit comes before any signature check or key agreement, so a refusal is cheap.
    const claimed = (frame as { device?: unknown }).device;
    const known =
      typeof claimed === 'string' && claimed.length <= 64
        ? ctx.runtime.findDevice(claimed)
        : undefined;
    const limited = known === undefined ? null : ctx.admitHello(known.deviceId);
    if (limited !== null) return this.refuse(limited, 'over the hello rate of its device');
    const hello = acceptHello(frame, {
      identity: ctx.identity,
      connectionId: this.id,
      instanceId: ctx.runtime.instance,
      lookupDevice: (deviceId) => {
        const device = deviceId === known?.deviceId ? known : ctx.runtime.findDevice(deviceId);
        return device && { devicePk: device.devicePk, revoked: device.revokedAt !== null };
      },
    });
    if (!hello.ok) return this.refuse(hello.error, hello.error.internalReason);
    const crowded = ctx.admitChannel(hello.deviceId);
    if (crowded !== null) {
      hello.cipher.close();
      return this.refuse(crowded, 'too many open channels for its device');
    }
    clearTimeout(this.handshakeTimer);
    this.socket.send(JSON.stringify(hello.welcome));
    this.cipher = hello.cipher;
    this.deviceId = hello.deviceId;
    this.phase = 'open';
    this.firstFrameTimer = setTimeout(() => {
      ctx.refusals.refused('no_first_frame', this.address, 'channel closed', {
        detail: 'no frame that decrypts since welcome',
        deviceId: this.deviceId,
      });
      this.close(CloseCode.handshakeTimeout, 'handshake_timeout');
    }, ctx.firstFrameTimeoutMs);
    ctx.onOpen(this);
  }

  /** Logs a refused hello (once per code and address per interval) and fails with `error`. */
  private refuse(error: TetherError, detail: string): void {
    this.ctx.refusals.refused(error.code, this.address, 'hello refused', { detail });
    this.fail(error);
  }

  /** The first frame decrypted: the channel is the device's, so now it counts as seen. */
  private confirm(): void {
    this.confirmed = true;
    clearTimeout(this.firstFrameTimer);
    this.touchLastSeen();
    this.ctx.onConfirmed(this);
  }

  private touchLastSeen(): void {
    this.ctx.runtime.recordDeviceSeen(this.deviceId!);
  }

  private failPairing(error: TetherError, countAttemptOn: string | undefined): void {
    if (countAttemptOn !== undefined) this.ctx.runtime.countFailedPairing(countAttemptOn);
    this.fail(error);
  }

  private receiveFrame(data: WebSocket.RawData, isBinary: boolean): void {
    const raw = this.cipher!.openFrame(frameBytes(data), isBinary);
    if (!this.confirmed) this.confirm();
    const parsed = RemoteMessage.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown }).id;
      if (typeof id !== 'string')
        throw new TetherError('protocol_error', 'a frame that is neither req nor ping');
      const error = new TetherError('invalid_request', 'not a valid request', {
        details: { issues: describeIssues(parsed.error) },
      });
      this.send({ t: 'res', id, ok: false, error: error.toWire() }, 'control');
      return;
    }
    if (parsed.data.t === 'ping') {
      this.send({ t: 'pong' }, 'control');
      return;
    }
    this.answer(parsed.data);
    if (this.cipher?.needsRekey) this.close(CloseCode.rekey, 'rekey');
  }

  private answer(message: RequestMessage): void {
    let afterAnswer: (() => void) | undefined;
    let response: HostMessage;
    try {
      const request = parseRequest(message);
      let result: Record<string, unknown>;
      if (request.op === 'subscribe') {
        const sub = newServerId('sub');
        const subscription = this.ctx.runtime.subscribe(request.args, this.deviceId!);
        const scope = request.args.scope ?? {};
        this.subscriptions.set(sub, { subscription, scope, lastSeq: subscription.cursor });
        result = {
          sub,
          mode: subscription.mode,
          cursor: subscription.cursor,
          ...(subscription.mode === 'snapshot' ? { snapshot: subscription.snapshot } : {}),
        };
        // If the answer cannot be sent, the subscription must not live on unseen.
        response = { t: 'res', id: message.id, ok: true, result };
        if (!this.sendAnswer(response)) {
          subscription.close();
          this.subscriptions.delete(sub);
          return;
        }
        subscription.start((events) => this.deliver(sub, events));
        return;
      }
      if (request.op === 'unsubscribe') {
        this.subscriptions.get(request.args.sub)?.subscription.close();
        this.subscriptions.delete(request.args.sub);
        result = {};
      } else {
        const routed = routeRequest(this.ctx, request, this.deviceId!, this.id, this.origin);
        if (routed instanceof Promise) return this.answerLater(message, routed);
        result = routed;
        if (request.op === 'device.revoke' && request.args.deviceId === this.deviceId) {
          afterAnswer = () => this.close(CloseCode.revoked, 'device_revoked');
        }
      }
      response = { t: 'res', id: message.id, ok: true, result };
    } catch (error) {
      const failure = TetherError.from(error);
      if (failure.code === 'internal') {
        this.ctx.log.error('request failed', { op: message.op, error: String(failure.cause) });
      }
      response = { t: 'res', id: message.id, ok: false, error: failure.toWire() };
    }
    if (this.sendAnswer(response)) afterAnswer?.();
  }

  /** Answers once an asynchronous result (a signed download link) is ready. */
  private answerLater(message: RequestMessage, pending: Promise<Record<string, unknown>>): void {
    pending.then(
      (result) => this.sendAnswer({ t: 'res', id: message.id, ok: true, result }),
      (error: unknown) => {
        const failure = TetherError.from(error);
        if (failure.code === 'internal') {
          this.ctx.log.error('request failed', { op: message.op, error: String(failure.cause) });
        }
        this.sendAnswer({ t: 'res', id: message.id, ok: false, error: failure.toWire() });
      },
    );
  }

  /**
   * Sends an answer; one too large for a frame (a huge run.get, say) becomes a
   * `payload_too_large` answer rather than none. False when the real answer did not go out.
   */
  private sendAnswer(response: HostMessage & { t: 'res' }): boolean {
    if (this.send(response, 'control')) return true;
    if (!this.isOpen) return false;
    const error = new TetherError('payload_too_large', 'the answer does not fit in one frame');
    this.send({ t: 'res', id: response.id, ok: false, error: error.toWire() }, 'control');
    return false;
  }

  /** Sends committed events of one subscription, or `lagged` when the remote cannot keep up. */
  private deliver(sub: string, events: Event[]): void {
    const state = this.subscriptions.get(sub);
    if (state === undefined || !this.isOpen) return;
    let batch: Event[] = [];
    let bytes = 0;
    const flush = (): boolean => {
      if (batch.length === 0) return true;
      if (!this.send({ t: 'events', sub, events: batch }, 'durable')) {
        state.subscription.close();
        this.subscriptions.delete(sub);
        this.send({ t: 'lagged', sub, cursor: state.lastSeq }, 'control');
        return false;
      }
      state.lastSeq = batch.at(-1)!.seq;
      batch = [];
      bytes = 0;
      return true;
    };
    for (const event of events) {
      const size = eventSize(event);
      if (bytes + size > EVENTS_FRAME_BYTES && !flush()) return;
      batch.push(event);
      bytes += size;
    }
    flush();
  }

  /**
   * Seals and sends `message` if its priority fits what the socket already holds; false
   * when it was dropped. Nothing is sealed unless sent, so the counters stay in step.
   */
  private send(message: HostMessage, priority: Priority): boolean {
    if (!this.isOpen || this.cipher === null) return false;
    const buffered = this.socket.bufferedAmount;
    if (priority === 'ephemeral' && buffered > EPHEMERAL_LIMIT) return false;
    if (priority === 'durable' && buffered > DURABLE_LIMIT) return false;
    if (buffered > HARD_LIMIT) {
      this.ctx.log.warn('closing a connection that reads nothing', { conn: this.id, buffered });
      this.close(CloseCode.protocolError, 'not reading');
      return false;
    }
    try {
      this.socket.send(this.cipher.seal(message));
    } catch (error) {
      const failure = TetherError.from(error);
      if (failure.code !== 'payload_too_large') throw error;
      this.ctx.log.error('message too large for one frame', { conn: this.id, t: message.t });
      return false;
    }
    return true;
  }

  private fail(error: TetherError): void {
    if (this.phase === 'closed') return;
    const code = error.closeCode ?? CloseCode.protocolError;
    if (this.phase !== 'open' && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(JSON.stringify(handshakeErrorFrame(error)));
    }
    this.close(code, error.code);
  }

  private cleanUp(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.firstFrameTimer);
    for (const { subscription } of this.subscriptions.values()) subscription.close();
    this.subscriptions.clear();
    this.cipher?.close();
    if (this.confirmed) {
      try {
        this.touchLastSeen();
      } catch (error) {
        this.ctx.log.warn('could not record last seen', { error: String(error) });
      }
    }
    this.ctx.onClose(this);
  }
}
