/**
 * The ModelAdapter over the openai SDK: one streamed Chat Completions request per attempt,
 * a watchdog for the first chunk and for silences, and bounded retries that each show up
 * as a `retry` event. The SDK's own retries are off; its stream helpers are not used
 * (they keep only the last fragment of fields they do not know, such as reasoning_content).
 */
import type OpenAI from 'openai';
import { Redactor } from '../log/index.js';
import type { ChatRequestBody } from './provider-rules.js';
import { chatChunkSchema, streamErrorSchema } from './chat-chunk.js';
import { badResponse, classifyApiError, modelFailure, withoutSecrets } from './error-classes.js';
import type * as OpenAISdk from './openai-sdk.js';
import { buildChatRequest, detectProvider, takesImages } from './provider-rules.js';
import { retryDelayMs, waitForRetry } from './retry-policy.js';
import type { AttemptResult } from './stream-assembler.js';
import { StreamAssembler } from './stream-assembler.js';
import type { ModelAdapter, ModelAdapterConfig, ModelMessage, ModelStreamEvent } from './types.js';

const DEFAULTS = {
  maxAttempts: 5,
  retryBaseDelayMs: 1000,
  retryMaxDelayMs: 60_000,
  firstTokenTimeoutMs: 10 * 60_000,
  idleTimeoutMs: 60_000,
};

type Settings = typeof DEFAULTS;

/** The SDK (./openai-sdk.ts, loaded by the first request) and the endpoint's client. */
interface LoadedClient {
  sdk: typeof OpenAISdk;
  client: OpenAI;
}

/** An attempt's result, with the wait its failure asked for (Retry-After). */
type AttemptOutcome = AttemptResult & { retryAfterMs?: number };

/** Makes the adapter for one endpoint. Throws only for a base URL that is not a URL. */
export function createModelAdapter(config: ModelAdapterConfig): ModelAdapter {
  const provider = config.provider ?? detectProvider(config.baseUrl);
  const settings: Settings = {
    maxAttempts: config.maxAttempts ?? DEFAULTS.maxAttempts,
    retryBaseDelayMs: config.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
    retryMaxDelayMs: config.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs,
    firstTokenTimeoutMs: config.firstTokenTimeoutMs ?? DEFAULTS.firstTokenTimeoutMs,
    idleTimeoutMs: config.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
  };
  let loaded: Promise<LoadedClient> | undefined;
  const loadClient = () =>
    (loaded ??= import('./openai-sdk.js').then((sdk) => ({
      sdk,
      // The watchdog below owns timeouts; the SDK's timer (until headers) gets the same bound.
      client: sdk.openAIClient(config, settings.firstTokenTimeoutMs),
    })));
  const extraBody = config.extraBody ?? {};
  const secrets = config.secrets ?? new Redactor();
  if (config.apiKey !== undefined) secrets.register(config.apiKey);
  return {
    provider,
    stream: (request, signal) =>
      takesImages(request.model) === false && request.messages.some(hasImages)
        ? refuseImages(request.model)
        : streamWithRetries(
            loadClient,
            buildChatRequest(provider, request, extraBody),
            { ...settings, secrets },
            signal,
          ),
  };
}

function hasImages(message: ModelMessage): boolean {
  return message.role === 'user' && (message.images?.length ?? 0) > 0;
}

/** A request with images to a model known to take none: failed unsent. */
// eslint-disable-next-line @typescript-eslint/require-await -- an AsyncIterable like the others
async function* refuseImages(model: string): AsyncIterable<ModelStreamEvent> {
  yield {
    type: 'failed',
    error: modelFailure(
      'unsupported_input',
      `${model} does not take images (host/model/provider-rules.ts knows it): nothing was sent. Send the task without images, or use a model that takes them (tether model set)`,
    ),
  };
}

async function* streamWithRetries(
  loadClient: () => Promise<LoadedClient>,
  body: ChatRequestBody,
  settings: Settings & { secrets: Redactor },
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent> {
  const loadedClient = await loadClient();
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) {
      yield { type: 'failed', error: modelFailure('aborted', 'request aborted') };
      return;
    }
    const outcome = yield* streamAttempt(loadedClient, body, settings, signal);
    if (outcome.type === 'completed') {
      yield { type: 'completed', message: outcome.message };
      return;
    }
    // The one way out of the adapter for a failure's message.
    const failure = withoutSecrets(outcome.error, settings.secrets);
    if (!failure.retryable || attempt >= settings.maxAttempts) {
      const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
      yield { type: 'failed', error: { ...failure, message: failure.message + tries } };
      return;
    }
    const delayMs = retryDelayMs(
      attempt,
      { baseDelayMs: settings.retryBaseDelayMs, maxDelayMs: settings.retryMaxDelayMs },
      outcome.retryAfterMs,
    );
    yield {
      type: 'retry',
      attempt: attempt + 1,
      maxAttempts: settings.maxAttempts,
      delayMs,
      reason: failure.class,
      ...(failure.status !== undefined && { status: failure.status }),
      message: failure.message,
    };
    if (!(await waitForRetry(delayMs, signal))) {
      yield {
        type: 'failed',
        error: modelFailure('aborted', 'request aborted during retry backoff'),
      };
      return;
    }
  }
}

type StopReason = 'aborted' | 'timeout';

/**
 * One attempt: yields text, reasoning and tool-call deltas as they arrive and returns how
 * it ended. The SDK ends an aborted stream quietly, so the watchdog and the caller's
 * signal record why they stopped it before aborting. The watchdog runs only while the
 * server is awaited, never while the consumer holds an event.
 */
async function* streamAttempt(
  { sdk, client }: LoadedClient,
  body: ChatRequestBody,
  settings: Settings,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent, AttemptOutcome> {
  const controller = new AbortController();
  let stopReason: StopReason | undefined;
  const stop = (reason: StopReason): void => {
    stopReason ??= reason;
    controller.abort();
  };
  const onAbort = (): void => stop('aborted');
  signal.addEventListener('abort', onAbort, { once: true });
  let timer = setTimeout(() => stop('timeout'), settings.firstTokenTimeoutMs);
  const assembler = new StreamAssembler();
  let chunks = 0;

  const stopped = (): AttemptOutcome => {
    if (stopReason === 'aborted') {
      return { type: 'failed', error: modelFailure('aborted', 'request aborted') };
    }
    // A server that goes quiet after the finishing chunk has said all it will say.
    if (assembler.finished) return assembler.result();
    const silence =
      chunks === 0
        ? `no first chunk within ${settings.firstTokenTimeoutMs} ms`
        : `no chunk for ${settings.idleTimeoutMs} ms`;
    return { type: 'failed', error: modelFailure('timeout', silence) };
  };

  try {
    let iterator: AsyncIterator<unknown>;
    try {
      const stream = await client.chat.completions.create(body, { signal: controller.signal });
      iterator = stream[Symbol.asyncIterator]();
    } catch (error) {
      return stopReason ? stopped() : failedWith(error, sdk);
    }
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await iterator.next();
      } catch (error) {
        return stopReason ? stopped() : failedWith(error, sdk);
      }
      clearTimeout(timer);
      if (stopReason) return stopped();
      if (next.done) return assembler.result();
      chunks++;
      const streamError = streamErrorSchema.safeParse(next.value);
      if (streamError.success) {
        const { code, type, message } = streamError.data;
        const error = classifyApiError({ status: undefined, code, type: type ?? '', message });
        return { type: 'failed', error };
      }
      const chunk = chatChunkSchema.safeParse(next.value);
      if (!chunk.success) {
        const where = chunk.error.issues.map(
          (issue) => `${issue.path.join('.')}: ${issue.message}`,
        );
        return { type: 'failed', error: badResponse(where.join('; '), next.value) };
      }
      yield* assembler.push(chunk.data);
      timer = setTimeout(() => stop('timeout'), settings.idleTimeoutMs);
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

function failedWith(error: unknown, sdk: typeof OpenAISdk): AttemptOutcome {
  const wait = sdk.requestedWaitMs(error);
  return {
    type: 'failed',
    error: sdk.classifyError(error),
    ...(wait !== undefined && { retryAfterMs: wait }),
  };
}
