/**
 * The one error type of Tether and its code table (docs/protocol.md sections 2 and 6.2).
 */

/** WebSocket close codes (docs/protocol.md §2). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  rekey: 4000,
  protocolError: 4400,
  unauthorized: 4401,
  revoked: 4403,
  handshakeTimeout: 4408,
  pairingFailed: 4409,
  unsupportedVersion: 4426,
  rateLimited: 4429,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

interface CodeInfo {
  /** HTTP status when the error answers an HTTP request. */
  readonly http: number;
  /** Close code when the error ends a socket (handshake errors and protocol faults). */
  readonly close: CloseCode | null;
  /** Whether the same request may succeed if sent again later unchanged. */
  readonly retryable: boolean;
}

/**
 * Every error code Tether puts on the wire. Request errors (section 6.2) answer a `req`
 * and leave the channel open; handshake errors (sections 3 and 4) are sent as
 * `{"t":"error"}` and close the socket with their close code.
 */
export const ERROR_CODES = {
  // Request errors, section 6.2.
  invalid_request: { http: 400, close: null, retryable: false },
  unknown_op: { http: 400, close: null, retryable: false },
  not_found: { http: 404, close: null, retryable: false },
  command_conflict: { http: 409, close: null, retryable: false },
  invalid_state: { http: 409, close: null, retryable: false },
  approval_resolved: { http: 409, close: null, retryable: false },
  approval_expired: { http: 410, close: null, retryable: false },
  digest_mismatch: { http: 409, close: null, retryable: false },
  merge_conflict: { http: 409, close: null, retryable: false },
  workspace_denied: { http: 403, close: null, retryable: false },
  payload_too_large: { http: 413, close: null, retryable: false },
  transcription_failed: { http: 502, close: null, retryable: false },
  rate_limited: { http: 429, close: CloseCode.rateLimited, retryable: true },
  persistence_failed: { http: 503, close: null, retryable: true },
  unavailable: { http: 503, close: CloseCode.goingAway, retryable: true },
  internal: { http: 500, close: null, retryable: false },
  // Handshake and channel errors, sections 2-5.
  protocol_error: { http: 400, close: CloseCode.protocolError, retryable: false },
  unauthorized: { http: 401, close: CloseCode.unauthorized, retryable: false },
  device_revoked: { http: 403, close: CloseCode.revoked, retryable: false },
  handshake_timeout: { http: 408, close: CloseCode.handshakeTimeout, retryable: true },
  pair_failed: { http: 403, close: CloseCode.pairingFailed, retryable: false },
  unsupported_version: { http: 426, close: CloseCode.unsupportedVersion, retryable: false },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The error object inside a failed `res` (section 6). */
export type WireError = {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
};

/**
 * Tether's one error type: a `code` from {@link ERROR_CODES}, a `message` for people,
 * optional `details` that go on the wire, and an optional `cause` that never does.
 */
export class TetherError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TetherError';
    this.code = code;
    this.details = options.details;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get closeCode(): CloseCode | null {
    return ERROR_CODES[this.code].close;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }

  toWire(): WireError {
    const wire: WireError = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details !== undefined) wire.details = this.details;
    return wire;
  }

  /** At a boundary: keeps TetherErrors, turns anything else into `internal` with the cause kept. */
  static from(error: unknown): TetherError {
    if (error instanceof TetherError) return error;
    return new TetherError('internal', 'internal error', { cause: error });
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The message of anything thrown: an Error's message, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
