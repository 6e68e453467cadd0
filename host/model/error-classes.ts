/**
 * Turns what went wrong with a model request (an SDK error, a finish reason, a watchdog)
 * into a ModelFailure: its class, a message for people, and whether a retry may help.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { Redactor } from '../log/index.js';
import type { ModelErrorClass, ModelFailure } from './types.js';

const RETRYABLE: Record<ModelErrorClass, boolean> = {
  timeout: true,
  rate_limit: true,
  server: true,
  network: true,
  refusal: false,
  context_too_long: false,
  bad_request: false,
  auth: false,
  aborted: false,
};

/** A failure of `errorClass`, retryable exactly when that class is. */
export function modelFailure(
  errorClass: ModelErrorClass,
  message: string,
  status?: number,
): ModelFailure {
  const failure: ModelFailure = { class: errorClass, message, retryable: RETRYABLE[errorClass] };
  if (status !== undefined) failure.status = status;
  return failure;
}

// OpenAI: code context_length_exceeded; DeepSeek: "This model's maximum context length is
// 131072 tokens. However, you requested ..."; others say "context window" or "prompt is too long".
const CONTEXT_TOO_LONG =
  /context_length_exceeded|maximum context length|context length|context window|prompt is too long/i;

/**
 * Classifies an error thrown by the SDK while sending a request or reading its stream.
 * Errors that are not the SDK's come from the socket under a started stream (undici's
 * "terminated") and are network failures.
 */
export function classifyError(error: unknown): ModelFailure {
  if (error instanceof APIUserAbortError) return modelFailure('aborted', 'request aborted');
  if (error instanceof APIConnectionTimeoutError) return modelFailure('timeout', error.message);
  if (error instanceof APIConnectionError) {
    return modelFailure('network', describeCause(error.message, error.cause));
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    return classifyApiError(
      status,
      typeof error.code === 'string' ? error.code : '',
      error.message,
    );
  }
  if (error instanceof SyntaxError) {
    return modelFailure('server', `malformed stream chunk: ${error.message}`);
  }
  return modelFailure('network', describeCause('stream interrupted', error));
}

function classifyApiError(status: number | undefined, code: string, message: string): ModelFailure {
  if (CONTEXT_TOO_LONG.test(code) || CONTEXT_TOO_LONG.test(message)) {
    return modelFailure('context_too_long', message, status);
  }
  // An error event inside a 200 stream has no status: the server gave up mid-answer.
  if (status === undefined) return modelFailure('server', message);
  if (status === 401 || status === 403) {
    // The SDK's message starts with the status; the provider's words follow.
    const said = message.replace(/^\d{3} /, '');
    return modelFailure('auth', `authentication failed (${status}): ${said}`, status);
  }
  if (status === 402 || code === 'insufficient_quota') {
    // OpenAI reports an exhausted quota as 429 insufficient_quota: waiting does not help.
    return modelFailure('bad_request', `insufficient balance or quota: ${message}`, status);
  }
  if (status === 408) return modelFailure('timeout', message, status);
  if (status === 429) return modelFailure('rate_limit', message, status);
  // 409 is a lock timeout at OpenAI; like 5xx it may pass.
  if (status === 409 || status >= 500) return modelFailure('server', message, status);
  if (status === 413) return modelFailure('context_too_long', message, status);
  return modelFailure('bad_request', message, status);
}

/**
 * `failure` with every secret `secrets` holds, and every token shaped like a key, masked in
 * its message: providers echo the key they refused (`Incorrect API key provided: sk-…`),
 * and the message is stored, logged and sent to every device.
 */
export function withoutSecrets(failure: ModelFailure, secrets: Redactor): ModelFailure {
  const message = secrets.foreignText(failure.message);
  return message === failure.message ? failure : { ...failure, message };
}

function describeCause(message: string, cause: unknown): string {
  if (!(cause instanceof Error)) return message;
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${message} (${cause.message}${inner})`;
}

/**
 * The failure a finish reason stands for, or undefined when it ends a usable turn.
 * `content_filter` is a refusal; DeepSeek's `insufficient_system_resource` and `aborted`
 * are server failures worth a retry.
 */
export function finishReasonFailure(finishReason: string): ModelFailure | undefined {
  switch (finishReason) {
    case 'content_filter':
      return modelFailure('refusal', 'the provider stopped the answer with its content filter');
    case 'insufficient_system_resource':
    case 'aborted':
      return modelFailure('server', `the provider ended the answer early: ${finishReason}`);
    default:
      return undefined;
  }
}
