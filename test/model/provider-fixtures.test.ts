/**
 * Issue 15: every provider behaviour, replayed from a recorded-style fixture in
 * test/fixtures/providers/ (each names its source) through the real adapter over HTTP, in
 * one write, one SSE event per write and one byte per write.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelAdapter } from '../../host/model/index.js';
import type { ModelCompletion, ModelRequest, ProviderKind } from '../../host/model/index.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';
import { startScriptedModelServer, textTurn, writesOf } from '../support/scripted-model-server.js';
import type {
  RawReply,
  ScriptedModelServer,
  WriteSplit,
} from '../support/scripted-model-server.js';
import { collect, completionOf, failureOf, userRequest } from './adapter-harness.js';

const FIXTURES = new URL('../fixtures/providers/', import.meta.url);
const SPLITS: WriteSplit[] = ['whole', 'events', 'bytes'];
const API_KEY = 'sk-fixture-key-0123456789abcdef';

const errorFixtureSchema = z.object({
  source: z.string().min(20),
  status: z.number().int(),
  body: z.unknown(),
});

/** A fixture file as the provider sends it, written to the socket under `split`. */
function fixture(name: string, split: WriteSplit): RawReply {
  const text = readFileSync(new URL(name, FIXTURES), 'utf8');
  if (name.endsWith('.sse')) {
    expect(text, `${name} names its source`).toMatch(/^: source: /);
    const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
    return { kind: 'raw', status: 200, headers, body: text, split };
  }
  const { status, body } = errorFixtureSchema.parse(JSON.parse(text));
  const headers = { 'content-type': 'application/json' };
  return { kind: 'raw', status, headers, body: JSON.stringify(body), split };
}

const readFile = {
  name: 'read_file',
  description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
};

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

function run(provider: ProviderKind, request: ModelRequest = userRequest('go')) {
  const adapter = createModelAdapter({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    provider,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 30,
  });
  return collect(adapter.stream(request, new AbortController().signal));
}

function deltas(events: ModelStreamEvent[], type: 'text' | 'reasoning'): string[] {
  return events.flatMap((event) => (event.type === type ? [event.delta] : []));
}

/** The body `provider` is sent for a next turn that carries `completion` as history. */
async function replayed(
  provider: ProviderKind,
  completion: ModelCompletion,
): Promise<Record<string, unknown>> {
  server.push(textTurn('next'));
  const toolResults = completion.toolCalls.map((call) => ({
    role: 'tool' as const,
    toolCallId: call.id,
    content: 'ok',
  }));
  const request = userRequest('go', {
    tools: [readFile],
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: completion.text,
        toolCalls: completion.toolCalls,
        native: completion.native,
      },
      ...toolResults,
    ],
  });
  completionOf(await run(provider, request));
  const message = server.chatBodies().at(-1)?.messages[1];
  if (message === undefined) expect.fail('no assistant message was sent');
  return message;
}

describe('the write splits', () => {
  it('writes a fixture whole, event by event (LF or CRLF) and byte by byte', () => {
    const { body } = fixture('llamacpp-error-field.sse', 'whole');

    const events = writesOf(body, 'events').map((piece) => piece.toString('utf8'));
    expect(events.join('')).toBe(body);
    expect(events).toHaveLength(4);
    expect(events.slice(1).every((event) => event.endsWith('\r\n\r\n'))).toBe(true);
    expect(writesOf(body, 'whole')).toHaveLength(1);
    const mistral = fixture('mistral-magistral-thinking.sse', 'whole').body;
    expect(writesOf(mistral, 'bytes')).toHaveLength(Buffer.byteLength(mistral));
  });
});

describe('detection and masking', () => {
  it.each([
    ['https://api.deepseek.com', 'deepseek'],
    ['https://my-res.openai.azure.com/openai/deployments/gpt-4o', 'azure'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/', 'gemini'],
    ['https://api.mistral.ai/v1', 'mistral'],
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.x.ai/v1', 'xai'],
    ['https://api.moonshot.ai/v1', 'moonshot'],
    ['https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'dashscope'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['http://localhost:11434/v1', 'ollama'],
    ['http://127.0.0.1:8080/v1', 'llamacpp'],
    ['http://gpu-box:8000/v1', 'vllm'],
    ['http://gpu-box:30000/v1', 'sglang'],
    ['http://localhost:1234/v1', 'lmstudio'],
    ['https://proxy.example/openai/v1', 'generic'],
  ] as const)('detects %s as %s', (baseUrl, provider) => {
    expect(createModelAdapter({ baseUrl }).provider).toBe(provider);
  });

  it('masks the API key in a quoted bad_response chunk and in an error: SSE field', async () => {
    const quoting = fixture('malformed-chunk.sse', 'events');
    quoting.body = quoting.body.replace('" there"', `"${API_KEY}"`);
    const field = fixture('llamacpp-error-field.sse', 'events');
    field.body = field.body.replace('the request exceeds', `key ${API_KEY}: the request exceeds`);
    server.push(quoting, field);

    const failures = [failureOf(await run('generic')), failureOf(await run('llamacpp'))];

    expect(failures.map((failure) => failure.class)).toEqual(['bad_response', 'context_too_long']);
    for (const failure of failures) expect(failure.message).not.toContain(API_KEY.slice(0, 12));
  });
});

describe.each(SPLITS)('provider fixtures written %s', (split) => {
  it('item 1: Mistral thinking parts are reasoning, text parts are text', async () => {
    server.push(fixture('mistral-magistral-thinking.sse', split));

    const events = await run('mistral');

    expect(deltas(events, 'reasoning').join('')).toBe(
      'The user wants 17 × 3. That is 51 — Ünïcödé ✓.',
    );
    const completion = completionOf(events);
    expect(completion).toEqual({
      text: '17 × 3 = 51.',
      reasoning: 'The user wants 17 × 3. That is 51 — Ünïcödé ✓.',
      toolCalls: [],
      finishReason: 'stop',
      usage: {
        promptTokens: 12,
        completionTokens: 40,
        totalTokens: 52,
        raw: { prompt_tokens: 12, total_tokens: 52, completion_tokens: 40 },
      },
      native: {},
    });
    expect(await replayed('mistral', completion)).toEqual({
      role: 'assistant',
      content: '17 × 3 = 51.',
    });
  });

  it('item 2: Kimi usage inside choices[0], its cached_tokens, reasoning and tool call', async () => {
    server.push(fixture('moonshot-kimi-usage-in-choice.sse', split));

    const completion = completionOf(await run('moonshot'));

    expect(completion.reasoning).toBe('Read the README first.');
    expect(completion.toolCalls).toEqual([
      { id: 'functions.read_file:0', name: 'read_file', arguments: '{"path":"README.md"}' },
    ]);
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({
      promptTokens: 1336,
      completionTokens: 31,
      totalTokens: 1367,
      cacheHitTokens: 1280,
    });
    expect(await replayed('moonshot', completion)).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: 'Read the README first.',
      tool_calls: [
        {
          id: 'functions.read_file:0',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"README.md"}' },
        },
      ],
    });
  });

  it('item 3: Gemini 3 thought_signature is kept per call and sent back to Gemini only', async () => {
    server.push(fixture('gemini-3-thought-signature.sse', split));

    const completion = completionOf(await run('gemini'));

    expect(completion.toolCalls).toEqual([
      { id: 'jm4owj31', name: 'read_file', arguments: '{"path":"src/main.ts"}' },
      { id: 'k2p9xq07', name: 'run_command', arguments: '{"command":"npm test"}' },
    ]);
    const signature = { google: { thought_signature: 'EjQKMgEMOdbHJChLX75QUCJjyYlm+sig/A==' } };
    expect(completion.native).toEqual({
      tool_calls: [{ id: 'jm4owj31', extra_content: signature }],
    });
    expect(completion.usage).toMatchObject({ reasoningTokens: 120, totalTokens: 261 });

    const toGemini = await replayed('gemini', completion);
    expect(toGemini.tool_calls).toEqual([
      {
        extra_content: signature,
        id: 'jm4owj31',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"src/main.ts"}' },
      },
      {
        id: 'k2p9xq07',
        type: 'function',
        function: { name: 'run_command', arguments: '{"command":"npm test"}' },
      },
    ]);
    for (const other of ['openai', 'deepseek', 'mistral'] as const) {
      expect(JSON.stringify(await replayed(other, completion))).not.toContain('thought_signature');
    }
  });

  it('item 4: Gemini 2.5 thought-marked text is reasoning without its tags', async () => {
    server.push(fixture('gemini-2.5-thoughts.sse', split));

    const events = await run('gemini');

    expect(deltas(events, 'text')).toEqual(['There are 3 r\'s in "strawberry".']);
    expect(completionOf(events)).toMatchObject({
      text: 'There are 3 r\'s in "strawberry".',
      reasoning: "**Counting letters**\nThe word has three r's. Done.",
      finishReason: 'stop',
      native: {},
      usage: { promptTokens: 8, completionTokens: 9, totalTokens: 97 },
    });
  });

  it.each([
    ['llamacpp-error-field.sse', undefined],
    ['llamacpp-exceed-context-stream.sse', undefined],
    ['llamacpp-exceed-context-400.json', 400],
  ])(
    'item 5: llama.cpp %s is context_too_long with its message, not retried',
    async (name, status) => {
      server.push(fixture(name, split));

      const events = await run('llamacpp');

      const failure = failureOf(events);
      expect(failure).toMatchObject({ class: 'context_too_long', retryable: false });
      expect(failure.status).toBe(status);
      expect(failure.message).toContain('the request exceeds the available context size');
      expect(events.some((event) => event.type === 'retry')).toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('item 5: LM Studio / llama.cpp 500 "Context size has been exceeded" is context_too_long', async () => {
    server.push(fixture('lmstudio-context-exceeded-500.json', split));

    const failure = failureOf(await run('lmstudio'));

    expect(failure).toMatchObject({ class: 'context_too_long', status: 500, retryable: false });
    expect(failure.message).toBe('500 Context size has been exceeded.');
    expect(server.requests).toHaveLength(1);
  });

  it('item 6: a vLLM {"object":"error"} event in the stream is read, not retried as network', async () => {
    server.push(fixture('vllm-error-stream.sse', split));

    const failure = failureOf(await run('vllm'));

    expect(failure).toMatchObject({ class: 'context_too_long', retryable: false });
    expect(failure.message).toMatch(/^This model's maximum context length is 32768 tokens/);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['vllm-error-body.json', 'bad_request', '404 The model `qwen3` does not exist.'],
    [
      'sglang-error-body.json',
      'context_too_long',
      "400 The input (40123 tokens) is longer than the model's context length (32768 tokens).",
    ],
  ] as const)('item 6: %s keeps its message', async (name, errorClass, message) => {
    server.push(fixture(name, split));

    const failure = failureOf(await run('vllm'));

    expect(failure).toMatchObject({ class: errorClass, message, retryable: false });
  });

  it('item 7: a Gemini 429 array is rate_limit with its message and its RetryInfo delay', async () => {
    server.push(fixture('gemini-error-array-429.json', split), textTurn('ok'));

    const events = await run('gemini');

    const [retry] = events.filter((event) => event.type === 'retry');
    // retryDelay "13s", capped by retryMaxDelayMs (30); without it the wait is at most 1 ms.
    expect(retry).toMatchObject({ reason: 'rate_limit', status: 429, delayMs: 30 });
    expect(retry?.message).toContain('You exceeded your current quota');
    expect(completionOf(events).text).toBe('ok');
  });

  it.each([
    ['gemini-error-array-context.json', 'gemini', 'The input token count (1196265) exceeds'],
    ['kimi-context-400.json', 'moonshot', 'exceeded model token limit: 262144'],
    ['dashscope-context-400.json', 'dashscope', 'Range of input length should be [1, 204800]'],
    ['xai-context-400.json', 'xai', 'maximum prompt length is 131072'],
  ] as const)(
    'items 7 and 8: %s is context_too_long with its wording',
    async (name, provider, words) => {
      server.push(fixture(name, split));

      const failure = failureOf(await run(provider));

      expect(failure).toMatchObject({ class: 'context_too_long', status: 400, retryable: false });
      expect(failure.message).toContain(words);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('item 9: Azure 400 content_filter is a refusal with its message', async () => {
    server.push(fixture('azure-content-filter-400.json', split));

    const failure = failureOf(await run('azure'));

    expect(failure).toMatchObject({ class: 'refusal', status: 400, retryable: false });
    expect(failure.message).toContain("triggering Azure OpenAI's content management policy");
  });

  it.each(['generic', 'openrouter'] as const)(
    'item 10: a delta index is kept as native but only the reasoning goes back to %s',
    async (provider) => {
      server.push(fixture('openrouter-delta-index.sse', split));

      const completion = completionOf(await run(provider));

      expect(completion).toMatchObject({ text: '4', reasoning: 'Two plus two.' });
      expect(completion.native).toEqual({ reasoning: 'Two plus two.', index: 0 });
      expect(completion.usage).toMatchObject({ cacheHitTokens: 0, reasoningTokens: 12 });
      expect(await replayed(provider, completion)).toEqual({
        role: 'assistant',
        content: '4',
        reasoning: 'Two plus two.',
      });
    },
  );

  it('item 11: a stream error says what it is; a server error is retried with its message', async () => {
    server.push(fixture('openrouter-midstream-error.sse', split), textTurn('whole'));

    const events = await run('openrouter');

    expect(events.filter((event) => event.type === 'retry')).toEqual([
      expect.objectContaining({ reason: 'server', message: 'Provider disconnected unexpectedly' }),
    ]);
    expect(completionOf(events).text).toBe('whole');
  });

  it('item 11: a chunk that fails the schema is bad_response, quoted, never retried', async () => {
    server.push(fixture('malformed-chunk.sse', split));

    const failure = failureOf(await run('generic'));

    expect(failure).toMatchObject({ class: 'bad_response', retryable: false });
    expect(failure.message).toContain('"choices":{"index":0,"delta":{"content":" there"}}');
    expect(server.requests).toHaveLength(1);
  });

  it('masks the API key a provider echoes in an error of any shape', async () => {
    const echoed = fixture('vllm-error-body.json', split);
    echoed.body = JSON.stringify([
      { error: { code: 401, message: `Incorrect API key provided: ${API_KEY}` } },
    ]);
    echoed.status = 401;
    server.push(echoed);

    const failure = failureOf(await run('generic'));

    expect(failure.class).toBe('auth');
    expect(failure.message).toContain('Incorrect API key provided');
    expect(failure.message).not.toContain(API_KEY);
    expect(failure.message).not.toContain(API_KEY.slice(0, 16));
  });
});
