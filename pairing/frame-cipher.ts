/**
 * Binary frames of an open channel (docs/protocol.md §5): one key and one counter per
 * direction, the counter never sent, so any dropped, replayed or reordered frame fails.
 */
import type { z } from 'zod/mini';
import {
  fromUtf8,
  MAX_FRAME_BYTES,
  parseWith,
  TetherError,
  u64be,
  utf8,
} from '../protocol/index.js';
import { type ChannelCrypto, pureJsCrypto } from './channel-crypto.js';

/** Frames in either direction after which the host closes with 4000 (rekey). */
const REKEY_AFTER_FRAMES = 2 ** 20;
/** Age after which the host closes with 4000 (rekey). */
const REKEY_AFTER_MS = 24 * 60 * 60 * 1000;

const TAG_BYTES = 16;

/**
 * Where a frame's UTF-8 is written before it is sealed, reused from frame to frame (the
 * seal is synchronous and copies it into the box): one allocation less per frame.
 */
let scratch = new Uint8Array(16 * 1024);
const encoder = new TextEncoder();
/** The most {@link scratch} grows to: a larger frame's text is encoded on its own. */
const SCRATCH_MAX_BYTES = 256 * 1024;

/** `utf8(json)`, in {@link scratch} when it surely fits (3 bytes a UTF-16 unit at most). */
function encodeForSeal(json: string): Uint8Array {
  const most = json.length * 3;
  if (most > SCRATCH_MAX_BYTES) return utf8(json);
  if (most > scratch.length) scratch = new Uint8Array(SCRATCH_MAX_BYTES);
  const { written } = encoder.encodeInto(json, scratch);
  return scratch.subarray(0, written);
}

/** `16 zero bytes ‖ u64be(counter)`. */
export function frameNonce(counter: number): Uint8Array {
  const nonce = new Uint8Array(24);
  nonce.set(u64be(counter), 16);
  return nonce;
}

export interface FrameKeys {
  /** This side's sending key: kC2H on a device, kH2C on the host. */
  sendKey: Uint8Array;
  receiveKey: Uint8Array;
}

export interface FrameCipherOptions {
  /** Default {@link REKEY_AFTER_FRAMES}; tests lower it. */
  rekeyAfterFrames?: number;
  /** Default {@link REKEY_AFTER_MS}. */
  rekeyAfterMs?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** The secretbox's implementation; default {@link pureJsCrypto}. */
  crypto?: ChannelCrypto;
}

/**
 * Seals and opens the frames of one connection. Any frame that fails to open closes the
 * cipher for good (`protocol_error`, close 4400): every later `seal` and `open` throws.
 * Takes ownership of the keys and zeroes them when closed.
 */
export class FrameCipher {
  private sent = 0;
  private received = 0;
  private isClosed = false;
  private readonly openedAt: number;
  private readonly rekeyAfterFrames: number;
  private readonly rekeyAfterMs: number;
  private readonly now: () => number;
  private readonly crypto: ChannelCrypto;

  constructor(
    private readonly keys: FrameKeys,
    options: FrameCipherOptions = {},
  ) {
    this.rekeyAfterFrames = options.rekeyAfterFrames ?? REKEY_AFTER_FRAMES;
    this.rekeyAfterMs = options.rekeyAfterMs ?? REKEY_AFTER_MS;
    this.now = options.now ?? Date.now;
    this.crypto = options.crypto ?? pureJsCrypto;
    this.openedAt = this.now();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** True once either counter reached the frame limit or the channel reached its age limit. */
  get needsRekey(): boolean {
    const frames = Math.max(this.sent, this.received);
    return frames >= this.rekeyAfterFrames || this.now() - this.openedAt >= this.rekeyAfterMs;
  }

  /**
   * `secretbox(utf8(JSON(message)), nonce(counter), sendKey)`. A message whose frame would
   * pass {@link MAX_FRAME_BYTES} throws `payload_too_large` and uses no counter.
   */
  seal(message: object): Uint8Array {
    return this.sealJson(JSON.stringify(message));
  }

  /**
   * {@link FrameCipher.seal} of a message the caller already encoded: `json` must be the
   * `JSON.stringify` of one JSON object (the host builds `events` frames from events it
   * encoded once for every connection).
   */
  sealJson(json: string): Uint8Array {
    this.assertOpen();
    const plaintext = encodeForSeal(json);
    if (plaintext.length + TAG_BYTES > MAX_FRAME_BYTES) {
      throw new TetherError(
        'payload_too_large',
        `frame of ${plaintext.length + TAG_BYTES} bytes exceeds ${MAX_FRAME_BYTES}`,
      );
    }
    return this.crypto.secretbox(plaintext, frameNonce(this.sent++), this.keys.sendKey);
  }

  /**
   * Opens the next frame: its JSON object, validated by `schema` when given. A frame that
   * fails to open, is too big or holds no JSON object throws `protocol_error` and closes
   * the cipher; a message that fails `schema` throws `invalid_request` listing the issues
   * and leaves the channel open (the counter has moved on).
   */
  open(frame: Uint8Array): unknown;
  open<S extends z.core.$ZodType>(frame: Uint8Array, schema: S): z.output<S>;
  open<S extends z.core.$ZodType>(frame: Uint8Array, schema?: S): unknown {
    this.assertOpen();
    if (frame.length > MAX_FRAME_BYTES) {
      throw this.fail(`frame of ${frame.length} bytes exceeds ${MAX_FRAME_BYTES}`);
    }
    const plaintext = this.crypto.secretboxOpen(
      frame,
      frameNonce(this.received),
      this.keys.receiveKey,
    );
    if (plaintext === null) throw this.fail(`frame ${this.received} failed to open`);
    this.received++;
    let message: unknown;
    try {
      message = JSON.parse(fromUtf8(plaintext));
    } catch (cause) {
      throw this.fail('frame is not UTF-8 JSON', cause);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      throw this.fail('frame is not a JSON object');
    }
    return schema === undefined ? message : parseWith(schema, message, 'message');
  }

  /**
   * What a socket calls for every incoming frame once the channel is open: a text frame
   * is a protocol error (and closes the cipher), a binary one is {@link FrameCipher.open}ed.
   */
  openFrame(data: Uint8Array | ArrayBuffer | string, isBinary: boolean): unknown;
  openFrame<S extends z.core.$ZodType>(
    data: Uint8Array | ArrayBuffer | string,
    isBinary: boolean,
    schema: S,
  ): z.output<S>;
  openFrame<S extends z.core.$ZodType>(
    data: Uint8Array | ArrayBuffer | string,
    isBinary: boolean,
    schema?: S,
  ): unknown {
    this.assertOpen();
    if (typeof data === 'string' || !isBinary) throw this.fail('text frame on an open channel');
    const frame = data instanceof Uint8Array ? data : new Uint8Array(data);
    return schema === undefined ? this.open(frame) : this.open(frame, schema);
  }

  /** Zeroes both keys; the cipher refuses everything afterwards. */
  close(): void {
    this.isClosed = true;
    this.keys.sendKey.fill(0);
    this.keys.receiveKey.fill(0);
  }

  private assertOpen(): void {
    if (this.isClosed) throw new TetherError('protocol_error', 'channel is closed');
  }

  private fail(reason: string, cause?: unknown): TetherError {
    this.close();
    return new TetherError('protocol_error', reason, { cause });
  }
}
