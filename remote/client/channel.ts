/**
 * An open channel (docs/protocol.md sections 5-6): sealed requests matched to their answers,
 * pushed messages handed on in frame order, keepalive, and the end of the connection.
 * Answers and pushes are delivered synchronously, in the order their frames arrived.
 */
import { z } from 'zod/mini';
import type { Event } from '../../protocol/index.js';
import {
  HostMessage,
  isErrorCode,
  type LaggedMessage,
  type OutputMessage,
  type PreviewMessage,
  type ResponseMessage,
  Seq,
  type StatusMessage,
  TetherError,
} from '../../protocol/index.js';
import type { FrameCipher } from '../../pairing/index.js';
import { parseEvent, quickParse } from './event-parser.js';
import type { IncomingFrame, SocketEnd } from './frame-socket.js';
import { Keepalive, type KeepaliveSettings } from './keepalive.js';
import type { OpenedChannel } from './open-channel.js';
import type { Timers } from './timers.js';

/** What a request comes to: the host's result or error, or a local failure. */
export type Answer =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: TetherError; fromHost: boolean };

/** An `events` frame: the events that passed their schema and the highest seq it carried. */
export interface EventsPush {
  t: 'events';
  sub: string;
  events: Event[];
  lastSeq: number;
}

/** A message the host pushes without being asked. */
export type PushMessage =
  EventsPush | PreviewMessage | OutputMessage | z.infer<typeof LaggedMessage> | StatusMessage;

/** What a channel hands its owner, synchronously and in frame order. */
export interface ChannelHandlers {
  push(message: PushMessage): void;
  /** A message that decrypted but failed its schema: dropped, the channel goes on. */
  invalid(error: TetherError): void;
  end(end: SocketEnd): void;
}

// Each event is checked once, in `events`: its own schema, else only its seq.
const EventsEnvelope = z.looseObject({
  t: z.literal('events'),
  sub: z.string(),
  events: z.array(z.unknown()).check(z.minLength(1)),
});
const SeqOnly = z.looseObject({ seq: Seq });
const ResponseId = z.looseObject({ t: z.literal('res'), id: z.string() });

/** One open, encrypted connection; it ends with its socket and is never reopened. */
export class Channel {
  readonly connectionId: string;
  readonly instanceId: string;
  private readonly cipher: FrameCipher;
  private readonly pending = new Map<string, (answer: Answer) => void>();
  private readonly keepalive: Keepalive;
  private nextId = 1;

  constructor(
    private readonly opened: OpenedChannel,
    private readonly handlers: ChannelHandlers,
    keepalive: KeepaliveSettings,
    timers: Timers,
  ) {
    this.connectionId = opened.connectionId;
    this.instanceId = opened.instanceId;
    this.cipher = opened.cipher;
    this.keepalive = new Keepalive(
      timers,
      keepalive,
      () => this.ping(),
      () => this.close(1000, 'no frame received for too long'),
    );
  }

  /**
   * Starts delivering frames (those queued since the welcome first) and the end, and
   * proves the channel with a first frame at once: the host closes a welcomed channel on
   * which nothing decrypts within 10 s (4408), as it would a replayed hello's.
   */
  start(): void {
    this.opened.socket.listen({
      frame: (frame) => this.frame(frame),
      end: (end) => this.ended(end),
    });
    if (this.isOpen) this.ping();
  }

  /** True until the socket ends. */
  get isOpen(): boolean {
    return this.opened.socket.end === undefined;
  }

  /**
   * Sends `{"t":"req"}`; `onAnswer` is called exactly once: with the host's `res`, with
   * `payload_too_large` when the request cannot fit a frame, or with `unavailable` when
   * the connection ends first.
   */
  request(op: string, args: Record<string, unknown>, onAnswer: (answer: Answer) => void): void {
    const id = `r${this.nextId++}`;
    this.pending.set(id, onAnswer);
    try {
      this.send({ t: 'req', id, op, args });
    } catch (error) {
      const tooLarge = error instanceof TetherError && error.code === 'payload_too_large';
      const failure = tooLarge
        ? error
        : new TetherError('unavailable', 'connection lost', { cause: error });
      this.settle(id, { ok: false, error: failure, fromHost: false });
    }
  }

  /**
   * Closes from this side: the end reports `error` (by default what `code` means) and
   * pending requests fail with `unavailable`.
   */
  close(code: number, reason = '', error?: TetherError): void {
    this.opened.socket.close(code, reason, error);
  }

  /** A ping; none on a socket already closing (its end comes with its close event). */
  private ping(): void {
    try {
      this.send({ t: 'ping' });
    } catch (error) {
      if (!(error instanceof TetherError && error.code === 'unavailable')) throw error;
    }
  }

  private send(message: object): void {
    const frame = this.cipher.seal(message);
    this.opened.socket.send(frame);
    this.keepalive.sent();
  }

  private frame(frame: IncomingFrame): void {
    this.keepalive.received();
    let value: unknown;
    try {
      value = this.cipher.openFrame(frame.data, frame.binary);
    } catch (error) {
      this.close(4400, 'frame failed to open', TetherError.from(error));
      return;
    }
    const events = quickParse(EventsEnvelope, value);
    if (events.success) {
      this.events(events.data);
      return;
    }
    const parsed = HostMessage.safeParse(value);
    if (!parsed.success) {
      const error = new TetherError('protocol_error', 'host sent an invalid message', {
        cause: parsed.error,
      });
      const response = ResponseId.safeParse(value);
      if (response.success && this.pending.has(response.data.id)) {
        this.settle(response.data.id, { ok: false, error, fromHost: false });
      } else {
        this.handlers.invalid(error);
      }
      return;
    }
    const message = parsed.data;
    switch (message.t) {
      case 'res':
        this.settle(message.id, answerOf(message));
        return;
      case 'pong':
        return;
      case 'events':
        return;
      default:
        this.handlers.push(message);
    }
  }

  /**
   * An event that fails its schema is skipped with a warning, its seq still counted; a
   * frame with an event that has no valid seq at all is invalid as a whole.
   */
  private events(message: z.infer<typeof EventsEnvelope>): void {
    const events: Event[] = [];
    const skipped: { seq: number; error: z.core.$ZodError }[] = [];
    let lastSeq = -1;
    for (const raw of message.events) {
      const parsed = parseEvent(raw);
      if (parsed.success) {
        events.push(parsed.data as Event);
        lastSeq = Math.max(lastSeq, parsed.data.seq);
        continue;
      }
      const seq = SeqOnly.safeParse(raw);
      if (!seq.success) {
        const error = new TetherError('protocol_error', 'host sent an invalid message', {
          cause: seq.error,
        });
        this.handlers.invalid(error);
        return;
      }
      skipped.push({ seq: seq.data.seq, error: parsed.error });
      lastSeq = Math.max(lastSeq, seq.data.seq);
    }
    for (const { seq, error } of skipped) {
      const what = `event seq ${seq} failed its schema (skipped)`;
      this.handlers.invalid(new TetherError('protocol_error', what, { cause: error }));
    }
    this.handlers.push({ t: 'events', sub: message.sub, events, lastSeq });
  }

  private settle(id: string, answer: Answer): void {
    const onAnswer = this.pending.get(id);
    if (onAnswer === undefined) return;
    this.pending.delete(id);
    onAnswer(answer);
  }

  private ended(end: SocketEnd): void {
    this.keepalive.stop();
    this.cipher.close();
    const lost = new TetherError('unavailable', `connection lost: ${end.error.message}`, {
      cause: end.error,
    });
    for (const id of [...this.pending.keys()])
      this.settle(id, { ok: false, error: lost, fromHost: false });
    this.handlers.end(end);
  }
}

function answerOf(message: ResponseMessage): Answer {
  if (message.ok) return { ok: true, result: message.result };
  const { code, message: text, details } = message.error;
  const error = isErrorCode(code)
    ? new TetherError(code, text, details === undefined ? {} : { details })
    : new TetherError('internal', text, { details: { ...details, code } });
  return { ok: false, error, fromHost: true };
}
