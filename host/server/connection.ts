/**
 * One WebSocket from a remote, from its first frame to its close: the handshake
 * (connection-handshake.ts), then encrypted frames whose requests request-router.ts
 * answers and whose sends channel-sender.ts bounds.
 */
import type WebSocket from 'ws';
import {
  CloseCode,
  MAX_FRAME_BYTES,
  quickSafeParse,
  RemoteMessage,
  TetherError,
  describeIssues,
  type StatusMessage,
} from '../../protocol/index.js';
import { handshakeErrorFrame, type FrameCipher, type HostPairing } from '../../pairing/index.js';
import type { LiveMessage, LiveRun } from '../runtime/index.js';
import { ChannelSender } from './channel-sender.js';
import { ChannelSubscriptions } from './channel-subscriptions.js';
import {
  beginHandshake,
  confirmPairing,
  type HandshakeContext,
  type HandshakeStep,
} from './connection-handshake.js';
import type { RequestOrigin } from './download-origin.js';
import { answerRequest, type RequestChannel, type RouterContext } from './request-router.js';
import { newServerId } from './server-ids.js';

/** What a connection needs of the host, and the channel server's hooks into its life. */
export interface ConnectionContext
  extends RouterContext, Omit<HandshakeContext, 'connectionId' | 'address'> {
  handshakeTimeoutMs: number;
  /** From `welcome` to the first frame that decrypts, else 4408. */
  firstFrameTimeoutMs: number;
  /** Called once the device is known and its channel open (`welcome` sent). */
  onOpen(connection: Connection): void;
  /** Called once the first frame decrypted: the peer holds the channel's keys. */
  onConfirmed(connection: Connection): void;
  /** Called once when the socket is gone, whatever the reason. */
  onClose(connection: Connection): void;
}

/** Where a connection is: each phase holds what exists only then. */
type ConnectionState =
  | { phase: 'handshake' }
  | { phase: 'pairing'; pairing: HostPairing }
  | {
      phase: 'open';
      deviceId: string;
      cipher: FrameCipher;
      sender: ChannelSender;
      subscriptions: ChannelSubscriptions;
      requests: RequestChannel;
      /** True once a frame decrypted: the peer holds the keys, not only a replayed hello. */
      confirmed: boolean;
      firstFrameTimer: NodeJS.Timeout;
    }
  | { phase: 'closed'; deviceId: string | null };

type OpenState = Extract<ConnectionState, { phase: 'open' }>;

function frameBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  return data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data);
}

/** One remote's socket; `state.phase` says what it holds now. */
export class Connection {
  readonly id = newServerId('conn');
  private state: ConnectionState = { phase: 'handshake' };
  private readonly handshake: HandshakeContext;
  private readonly handshakeTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: WebSocket,
    private readonly ctx: ConnectionContext,
    readonly address: string,
    /** The origin the remote connected to (for download links). */
    readonly origin: RequestOrigin,
  ) {
    this.handshake = { ...ctx, connectionId: this.id, address };
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

  /** The device this channel belongs to, once a hello was welcomed. */
  get deviceId(): string | null {
    const { state } = this;
    return state.phase === 'open' || state.phase === 'closed' ? state.deviceId : null;
  }

  /** True once a frame decrypted: the peer holds the keys, not only a replayed hello. */
  get confirmed(): boolean {
    return this.state.phase === 'open' && this.state.confirmed;
  }

  get isOpen(): boolean {
    return this.state.phase === 'open';
  }

  /** Closes the socket with `code`; nothing more is sent or received. */
  close(code: number, reason = ''): void {
    if (this.state.phase === 'closed') return;
    this.cleanUp();
    this.socket.close(code, reason);
  }

  /** A live preview or output tail for a run this connection may be watching. */
  sendLive(message: LiveMessage, { runId, sessionId }: LiveRun): void {
    const { state } = this;
    if (state.phase !== 'open') return;
    if (state.subscriptions.watches(runId, sessionId)) state.sender.send(message, 'ephemeral');
  }

  /** The host's condition (docs/protocol.md, "status"); sent ahead of events and previews. */
  sendStatus(message: StatusMessage): void {
    if (this.state.phase === 'open') this.state.sender.send(message, 'control');
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    const { state } = this;
    try {
      if (state.phase === 'open') return this.receiveFrame(state, data, isBinary);
      if (state.phase === 'closed') return;
      const bytes = frameBytes(data);
      if (isBinary || bytes.length > MAX_FRAME_BYTES) {
        throw new TetherError(
          'protocol_error',
          'expected a text frame of at most 1 MiB during the handshake',
        );
      }
      const text = Buffer.from(bytes).toString('utf8');
      this.advance(
        state.phase === 'pairing'
          ? confirmPairing(this.handshake, state.pairing, text)
          : beginHandshake(this.handshake, text),
      );
    } catch (error) {
      this.fail(TetherError.from(error));
    }
  }

  /** Sends what a handshake step says and moves to the phase it leads to. */
  private advance(step: HandshakeStep): void {
    switch (step.step) {
      case 'refused':
        return this.fail(step.error);
      case 'challenge':
        this.state = { phase: 'pairing', pairing: step.pairing };
        this.socket.send(step.reply);
        return;
      case 'paired':
        this.socket.send(step.reply);
        return this.close(CloseCode.normal);
      case 'welcome':
        clearTimeout(this.handshakeTimer);
        this.socket.send(step.reply);
        this.state = this.openChannel(step.deviceId, step.cipher);
        this.ctx.onOpen(this);
    }
  }

  private openChannel(deviceId: string, cipher: FrameCipher): OpenState {
    const sender = new ChannelSender(this.socket, cipher, {
      connectionId: this.id,
      log: this.ctx.log,
      onStalled: () => this.close(CloseCode.protocolError, 'not reading'),
    });
    const subscriptions = new ChannelSubscriptions(sender);
    const firstFrameTimer = setTimeout(() => {
      this.ctx.refusals.refused('no_first_frame', this.address, 'channel closed', {
        detail: 'no frame that decrypts since welcome',
        deviceId,
      });
      this.close(CloseCode.handshakeTimeout, 'handshake_timeout');
    }, this.ctx.firstFrameTimeoutMs);
    const requests: RequestChannel = {
      host: this.ctx,
      deviceId,
      connectionId: this.id,
      origin: this.origin,
      subscriptions,
      sendAnswer: (response) => sender.sendAnswer(response),
      sendEncodedAnswer: (id, resultJson) => sender.sendEncodedAnswer(id, resultJson),
      close: (code, reason) => this.close(code, reason),
    };
    return {
      phase: 'open',
      deviceId,
      cipher,
      sender,
      subscriptions,
      requests,
      confirmed: false,
      firstFrameTimer,
    };
  }

  /** The first frame decrypted: the channel is the device's, so now it counts as seen. */
  private confirm(state: OpenState): void {
    state.confirmed = true;
    clearTimeout(state.firstFrameTimer);
    this.ctx.runtime.devices.noteSeen(state.deviceId);
    this.ctx.onConfirmed(this);
  }

  private receiveFrame(state: OpenState, data: WebSocket.RawData, isBinary: boolean): void {
    const raw = state.cipher.openFrame(frameBytes(data), isBinary);
    if (!state.confirmed) this.confirm(state);
    const parsed = quickSafeParse(RemoteMessage, raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown }).id;
      if (typeof id !== 'string')
        throw new TetherError('protocol_error', 'a frame that is neither req nor ping');
      const error = new TetherError('invalid_request', 'not a valid request', {
        details: { issues: describeIssues(parsed.error) },
      });
      state.sender.send({ t: 'res', id, ok: false, error: error.toWire() }, 'control');
      return;
    }
    if (parsed.data.t === 'ping') {
      state.sender.send({ t: 'pong' }, 'control');
      return;
    }
    answerRequest(state.requests, parsed.data);
    if (state.cipher.needsRekey) this.close(CloseCode.rekey, 'rekey');
  }

  private fail(error: TetherError): void {
    if (this.state.phase === 'closed') return;
    const code = error.closeCode ?? CloseCode.protocolError;
    if (this.state.phase !== 'open' && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(JSON.stringify(handshakeErrorFrame(error)));
    }
    this.close(code, error.code);
  }

  private cleanUp(): void {
    const { state } = this;
    if (state.phase === 'closed') return;
    this.state = { phase: 'closed', deviceId: state.phase === 'open' ? state.deviceId : null };
    clearTimeout(this.handshakeTimer);
    if (state.phase === 'open') {
      clearTimeout(state.firstFrameTimer);
      state.sender.close();
      state.subscriptions.closeAll();
      state.cipher.close();
      if (state.confirmed) this.ctx.runtime.devices.noteSeen(state.deviceId);
    }
    this.ctx.onClose(this);
  }
}
