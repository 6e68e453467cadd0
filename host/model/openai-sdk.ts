/**
 * Everything of a model request that runs the openai SDK: the client for one endpoint, and
 * the SDK's errors read as ModelFailures. The adapter and the model list load it with
 * `import()` on their first request: a host that has not asked its model anything keeps
 * the SDK's half megabyte of code out of memory (docs/performance.md, "Idle RSS").
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from 'openai';
export { toFile } from 'openai';
import { classifyApiError, modelFailure } from './error-classes.js';
import { dialectFetch } from './provider-wire.js';
import { retryAfterMs, retryInfoDelayMs } from './retry-policy.js';
import type { ModelFailure } from './types.js';

/** A client of `endpoint` that never retries and whose timer runs until the headers. */
export function openAIClient(
  endpoint: { baseUrl: string; apiKey?: string },
  timeoutMs: number,
): OpenAI {
  return new OpenAI({
    baseURL: endpoint.baseUrl,
    // The SDK insists on a key; without one the Authorization header is removed below.
    apiKey: endpoint.apiKey ?? 'none',
    // Explicit nulls keep the SDK from reading OPENAI_* variables meant for someone else.
    organization: null,
    project: null,
    adminAPIKey: null,
    maxRetries: 0,
    // Failures are data here; the SDK would otherwise print raw stream chunks to the console.
    logLevel: 'off',
    timeout: timeoutMs,
    // Error bodies and stream errors in other providers' shapes, read as OpenAI's.
    fetch: dialectFetch(),
    ...(endpoint.apiKey === undefined && { defaultHeaders: { Authorization: null } }),
  });
}

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
    return classifyApiError({
      status,
      code: error.code,
      type: typeof error.type === 'string' ? error.type : '',
      message: error.message,
    });
  }
  if (error instanceof SyntaxError) {
    // The SDK's JSON.parse names the text it could not read.
    return modelFailure('bad_response', `unparseable stream chunk: ${error.message}`);
  }
  return modelFailure('network', describeCause('stream interrupted', error));
}

/** How long a failed request asks to wait: its Retry-After, else Gemini's RetryInfo. */
export function requestedWaitMs(error: unknown): number | undefined {
  if (!(error instanceof APIError)) return undefined;
  const headers = error.headers instanceof Headers ? error.headers : undefined;
  // Gemini says how long to wait in its body (google.rpc.RetryInfo), not in a header.
  return retryAfterMs(headers) ?? retryInfoDelayMs(error.error);
}

function describeCause(message: string, cause: unknown): string {
  if (!(cause instanceof Error)) return message;
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${message} (${cause.message}${inner})`;
}
