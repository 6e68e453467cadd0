/**
 * Reading handshake text frames, and handshake failures as data (docs/protocol.md sections 2-4).
 */
import { z } from 'zod/mini';
import {
  describeIssues,
  type ErrorCode,
  HandshakeErrorMessage,
  isErrorCode,
  PROTOCOL_VERSION,
  TetherError,
} from '../protocol/index.js';

/**
 * A failed handshake step. `message` is what the peer (or the user) may see; for pairing
 * it never says which check failed. `internalReason` says it, for the local log only.
 */
export class HandshakeError extends TetherError {
  readonly internalReason: string;

  constructor(code: ErrorCode, message: string, internalReason: string) {
    super(code, message);
    this.name = 'HandshakeError';
    this.internalReason = internalReason;
  }
}

export interface HandshakeFailure {
  ok: false;
  error: HandshakeError;
}

/**
 * What a handshake step returns: its output, or the error to send as
 * `{"t":"error"}` (see {@link handshakeErrorFrame}) before closing with `error.closeCode`.
 */
export type HandshakeResult<T extends object> = ({ ok: true } & T) | HandshakeFailure;

/** Runs one handshake step, turning a {@link HandshakeError} into a failed result. */
export function settle<T extends object>(step: () => T): HandshakeResult<T> {
  try {
    return { ok: true, ...step() };
  } catch (error) {
    if (error instanceof HandshakeError) return { ok: false, error };
    throw error;
  }
}

/** `{"t":"error","code":…,"message":…}`: sent before a handshake closes the socket. */
export function handshakeErrorFrame(error: TetherError): HandshakeErrorMessage {
  return { t: 'error', code: error.code, message: error.message };
}

/** A text frame as received (JSON text) or already parsed, as a JSON value. */
export function decodeFrame(frame: unknown): unknown {
  if (typeof frame !== 'string') return frame;
  try {
    const value: unknown = JSON.parse(frame);
    return value;
  } catch {
    throw new HandshakeError('protocol_error', 'text frame is not JSON', 'text frame is not JSON');
  }
}

/** Validates a handshake frame; `protocol_error` listing every issue when it does not fit. */
export function parseFrame<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const list = describeIssues(parsed.error)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  throw new HandshakeError(
    'protocol_error',
    `invalid ${what}: ${list}`,
    `invalid ${what}: ${list}`,
  );
}

/** On a remote: turns the host's `{"t":"error"}` frame into the failure it reports. */
export function throwIfErrorFrame(value: unknown): void {
  const parsed = HandshakeErrorMessage.safeParse(value);
  if (!parsed.success) return;
  const { code, message } = parsed.data;
  throw new HandshakeError(
    isErrorCode(code) ? code : 'protocol_error',
    message,
    `host sent error ${code}`,
  );
}

const VersionField = z.object({ v: z.number() });

/** Checked before the schema, so a newer version gets 4426 rather than 4400. */
export function requireVersion(value: unknown, what: string): void {
  const field = VersionField.safeParse(value);
  if (!field.success || field.data.v === PROTOCOL_VERSION) return;
  throw new HandshakeError(
    'unsupported_version',
    `unsupported protocol version ${field.data.v}: this side speaks ${PROTOCOL_VERSION}`,
    `${what} with version ${field.data.v}`,
  );
}
