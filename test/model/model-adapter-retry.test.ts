/**
 * Failures over real HTTP: which are retried (each one a `retry` event), how long the
 * adapter waits, which fail at once, and how timeouts and aborts end a stream.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelAdapter } from '../../host/model/index.js';
import type { ModelAdapterConfig } from '../../host/model/testing.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';
import {
  errorReply,
  startScriptedModelServer,
  textTurn,
} from '../support/scripted-model-server.js';
import type { ScriptedModelServer } from '../support/scripted-model-server.js';
import { collect, completionOf, failureOf, typesOf, userRequest } from './adapter-harness.js';

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

function adapter(config: Partial<ModelAdapterConfig> = {}) {
  return createModelAdapter({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test',
    provider: 'deepseek',
    retryBaseDelayMs: 5,
    ...config,
  });
}

function run(config: Partial<ModelAdapterConfig> = {}) {
  return collect(adapter(config).stream(userRequest('hi'), new AbortController().signal));
}

function retries(events: ModelStreamEvent[]) {
  return events.filter((event) => event.type === 'retry');
}

describe('retried failures', () => {
  it('waits exactly what retry-after-ms asks after a 429, then succeeds', async () => {
    server.push(
      errorReply(429, 'Rate limit reached', { headers: { 'retry-after-ms': '60' } }),
      textTurn('ok'),
    );

    const started = performance.now();
    const events = await run();

    expect(events[0]).toEqual({
      type: 'retry',
      attempt: 2,
      maxAttempts: 5,
      delayMs: 60,
      reason: 'rate_limit',
      status: 429,
      message: '429 Rate limit reached',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(completionOf(events).text).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('caps a Retry-After in seconds at retryMaxDelayMs', async () => {
    server.push(errorReply(429, 'busy', { headers: { 'retry-after': '120' } }), textTurn('ok'));

    const events = await run({ retryMaxDelayMs: 40 });

    expect(retries(events)).toMatchObject([{ delayMs: 40, reason: 'rate_limit' }]);
    expect(completionOf(events).text).toBe('ok');
  });

  it('retries 500 twice with growing, capped backoff, then succeeds', async () => {
    server.push(errorReply(500, 'internal'), errorReply(500, 'internal'), textTurn('ok'));

    const events = await run({ retryBaseDelayMs: 20 });

    expect(typesOf(events)).toEqual(['retry', 'retry', 'text', 'completed']);
    const [first, second] = retries(events);
    expect(first).toMatchObject({ attempt: 2, reason: 'server', status: 500 });
    expect(second).toMatchObject({ attempt: 3, reason: 'server', status: 500 });
    // Full jitter: uniformly random below base * 2^(n-1).
    expect(first?.delayMs).toBeLessThan(20);
    expect(second?.delayMs).toBeLessThan(40);
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    [408, 'timeout'],
    [409, 'server'],
    [502, 'server'],
  ] as const)('retries a %i as %s', async (status, reason) => {
    server.push(errorReply(status, 'try again'), textTurn('ok'));

    const events = await run();

    expect(retries(events)).toMatchObject([{ status, reason }]);
    expect(completionOf(events).text).toBe('ok');
  });

  it('fails as a server failure once maxAttempts are spent', async () => {
    server.push(
      errorReply(503, 'overloaded'),
      errorReply(503, 'overloaded'),
      errorReply(503, 'overloaded'),
    );

    const events = await run({ maxAttempts: 3 });

    expect(typesOf(events)).toEqual(['retry', 'retry', 'failed']);
    expect(events.at(-1)).toEqual({
      type: 'failed',
      error: {
        class: 'server',
        status: 503,
        retryable: true,
        message: '503 overloaded (after 3 attempts)',
      },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('discards a stream dropped mid-answer and retries it', async () => {
    // role chunk and one text chunk arrive, then the socket is destroyed.
    server.push(textTurn(['Hel', 'lo'], { dropAfter: 2 }), textTurn(['Hel', 'lo']));

    const events = await run();

    expect(typesOf(events)).toEqual(['text', 'retry', 'text', 'text', 'completed']);
    expect(events[1]).toMatchObject({ type: 'retry', reason: 'network' });
    expect(completionOf(events).text).toBe('Hello');
  });

  it('retries a stream that ends cleanly before any finish reason', async () => {
    server.push(textTurn('cut', { finishReason: null, done: false }), textTurn('whole'));

    const events = await run();

    expect(typesOf(events)).toEqual(['text', 'retry', 'text', 'completed']);
    expect(events[1]).toMatchObject({ type: 'retry', reason: 'network' });
    expect(completionOf(events).text).toBe('whole');
  });

  it('retries an error event inside the stream that names no cause as a server failure', async () => {
    const midStreamError = textTurn('par');
    midStreamError.items.push({ data: '{"error":{"message":"overloaded","type":"server_error"}}' });
    server.push(midStreamError, textTurn('whole'));

    const events = await run();

    expect(retries(events)).toEqual([
      expect.objectContaining({ reason: 'server', message: 'overloaded' }),
    ]);
    expect(completionOf(events).text).toBe('whole');
  });

  // Issue 15, item 11: a chunk the host cannot read comes back the same on a retry.
  it.each([
    ['not JSON', '{"choices": [', /^unparseable stream chunk: .*JSON/],
    [
      'the wrong shape',
      '{"choices": "none"}',
      /^malformed stream chunk \(choices: .*\): \{"choices":"none"\}$/,
    ],
  ])('fails a chunk that is %s as bad_response without a retry', async (_name, data, message) => {
    const turn = textTurn('par');
    turn.items.push({ data });
    server.push(turn);

    const events = await run();

    expect(retries(events)).toEqual([]);
    const failure = failureOf(events);
    expect(failure).toMatchObject({ class: 'bad_response', retryable: false });
    expect(failure.message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });

  it('quotes at most 300 characters of a malformed chunk', async () => {
    const turn = textTurn('par');
    turn.items.push({ data: JSON.stringify({ choices: 'x'.repeat(5000) }) });
    server.push(turn);

    const failure = failureOf(await run());

    expect(failure.class).toBe('bad_response');
    expect(failure.message).toContain(`"choices":"${'x'.repeat(100)}`);
    expect(failure.message).toContain('… (5014 chars)');
    expect(failure.message.length).toBeLessThan(400);
  });

  it('retries a refused connection as a network failure', async () => {
    const closed = await startScriptedModelServer();
    const baseUrl = closed.baseUrl;
    await closed.close();

    const events = await collect(
      adapter({ baseUrl, maxAttempts: 2 }).stream(userRequest('hi'), new AbortController().signal),
    );

    expect(typesOf(events)).toEqual(['retry', 'failed']);
    expect(events.at(-1)).toMatchObject({
      type: 'failed',
      error: { class: 'network', retryable: true },
    });
  });
});

describe('failures that are never retried', () => {
  it.each([
    ['OpenAI', errorReply(400, 'too long', { code: 'context_length_exceeded' })],
    [
      'DeepSeek',
      errorReply(
        400,
        "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (139000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      ),
    ],
  ])('classifies a %s context-length 400 as context_too_long', async (_provider, reply) => {
    server.push(reply);

    const events = await run();

    expect(events).toMatchObject([
      { type: 'failed', error: { class: 'context_too_long', status: 400, retryable: false } },
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['400 bad request', 'bad_request', errorReply(400, 'invalid tools'), /invalid tools/],
    ['401', 'auth', errorReply(401, 'Authentication Fails, Your api key is invalid'), /api key/],
    ['403', 'auth', errorReply(403, 'forbidden'), /forbidden/],
    ['402', 'bad_request', errorReply(402, 'Insufficient Balance'), /insufficient balance/],
    ['422', 'bad_request', errorReply(422, 'Invalid parameters'), /Invalid parameters/],
    ['413', 'context_too_long', errorReply(413, 'Request Entity Too Large'), /Too Large/],
    [
      '429 insufficient_quota',
      'bad_request',
      errorReply(429, 'You exceeded your quota', { code: 'insufficient_quota' }),
      /quota/,
    ],
  ] as const)('fails a %s at once as %s', async (_label, errorClass, reply, message) => {
    server.push(reply);

    const events = await run();

    expect(events).toHaveLength(1);
    const failure = failureOf(events);
    expect(failure).toMatchObject({ class: errorClass, status: reply.status, retryable: false });
    expect(failure.message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('retries a stream that stalls mid-answer once the idle timeout passes', async () => {
    server.push(textTurn(['Hel', 'lo'], { stallAfter: 2 }), textTurn('Hello'));

    const events = await run({ idleTimeoutMs: 100 });

    expect(typesOf(events)).toEqual(['text', 'retry', 'text', 'completed']);
    expect(events[1]).toMatchObject({
      type: 'retry',
      reason: 'timeout',
      message: 'no chunk for 100 ms',
    });
  });

  it('fails as timeout when every attempt stalls', async () => {
    server.push(textTurn('a', { stallAfter: 2 }), textTurn('a', { stallAfter: 2 }));

    const events = await run({ idleTimeoutMs: 80, maxAttempts: 2 });

    expect(typesOf(events)).toEqual(['text', 'retry', 'text', 'failed']);
    expect(events.at(-1)).toMatchObject({
      type: 'failed',
      error: { class: 'timeout', retryable: true },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('fails as timeout when no first chunk comes in time', async () => {
    server.push(textTurn('late', { stallAfter: 0 }));

    const events = await run({ firstTokenTimeoutMs: 100, maxAttempts: 1 });

    expect(events).toEqual([
      {
        type: 'failed',
        error: { class: 'timeout', message: 'no first chunk within 100 ms', retryable: true },
      },
    ]);
  });
});

describe('abort', () => {
  it('ends a stream promptly with aborted when the signal fires mid-answer', async () => {
    // Text arrives, then the server holds the socket open forever.
    server.push(textTurn('partial', { stallAfter: 2 }));
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    let abortedAt = 0;

    for await (const event of adapter().stream(userRequest('hi'), controller.signal)) {
      events.push(event);
      if (event.type === 'text') {
        abortedAt = performance.now();
        controller.abort();
      }
    }

    expect(events).toEqual([
      { type: 'text', delta: 'partial' },
      { type: 'failed', error: { class: 'aborted', message: 'request aborted', retryable: false } },
    ]);
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
  });

  it('ends the backoff wait promptly with aborted and sends nothing more', async () => {
    server.push(
      errorReply(429, 'busy', { headers: { 'retry-after-ms': '60000' } }),
      textTurn('never'),
    );
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    let abortedAt = 0;

    for await (const event of adapter().stream(userRequest('hi'), controller.signal)) {
      events.push(event);
      if (event.type === 'retry') {
        abortedAt = performance.now();
        controller.abort();
      }
    }

    expect(typesOf(events)).toEqual(['retry', 'failed']);
    expect(events[0]).toMatchObject({ delayMs: 60000 });
    expect(events[1]).toMatchObject({ type: 'failed', error: { class: 'aborted' } });
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();

    const events = await collect(adapter().stream(userRequest('hi'), controller.signal));

    expect(events).toMatchObject([{ type: 'failed', error: { class: 'aborted' } }]);
    expect(server.requests).toHaveLength(0);
  });
});
