/**
 * The adapter against the scripted server over real HTTP: what streams out, and how
 * text, reasoning, tool-call fragments, native fields and usage assemble into a turn.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelAdapter } from '../../host/model/index.js';
import type { ModelAdapterConfig } from '../../host/model/testing.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';
import {
  startScriptedModelServer,
  textTurn,
  toolCallTurn,
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
    ...config,
  });
}

function argumentsByIndex(events: ModelStreamEvent[]): string[] {
  const joined: string[] = [];
  for (const event of events) {
    if (event.type !== 'tool_call_delta') continue;
    joined[event.index] = (joined[event.index] ?? '') + event.argumentsDelta;
  }
  return joined;
}

describe('text and reasoning', () => {
  it('streams reasoning and text in order and joins every fragment into the completion', async () => {
    server.push({
      kind: 'stream',
      items: [
        { delta: { role: 'assistant', content: '', reasoning_content: 'The user ' } },
        { delta: { reasoning_content: 'greets me.' } },
        // DeepSeek sends reasoning_content: null beside content once the answer starts.
        { delta: { content: 'Hel', reasoning_content: null } },
        { delta: { content: 'lo', reasoning_content: null } },
      ],
    });

    const events = await collect(adapter().stream(userRequest('hi'), new AbortController().signal));

    expect(events.slice(0, -1)).toEqual([
      { type: 'reasoning', delta: 'The user ' },
      { type: 'reasoning', delta: 'greets me.' },
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
    ]);
    expect(completionOf(events)).toEqual({
      text: 'Hello',
      reasoning: 'The user greets me.',
      toolCalls: [],
      finishReason: 'stop',
      native: { reasoning_content: 'The user greets me.' },
    });
  });

  it('reads Ollama reasoning from delta.reasoning and keeps it as that native field', async () => {
    server.push(textTurn('4', { reasoning: ['2+2 ', 'is 4'], reasoningField: 'reasoning' }));

    const events = await collect(
      adapter({ provider: 'ollama' }).stream(userRequest('2+2?'), new AbortController().signal),
    );

    expect(typesOf(events)).toEqual(['reasoning', 'reasoning', 'text', 'completed']);
    const completion = completionOf(events);
    expect(completion.reasoning).toBe('2+2 is 4');
    expect(completion.native).toEqual({ reasoning: '2+2 is 4' });
  });

  it('waits through keep-alive comments and a slow drip shorter than the idle timeout', async () => {
    const turn = textTurn(['slow', ' but', ' steady'], { delayMs: 30 });
    turn.items.unshift({ comment: 'keep-alive' }, { comment: 'keep-alive' });
    server.push(turn);

    const events = await collect(
      adapter({ idleTimeoutMs: 1000 }).stream(userRequest('go'), new AbortController().signal),
    );

    expect(completionOf(events).text).toBe('slow but steady');
  });

  it('completes when the server goes quiet after the finishing chunk without [DONE]', async () => {
    // role chunk, text chunk, finishing chunk: then nothing, and the socket stays open.
    server.push(textTurn('done', { done: false, stallAfter: 3 }));

    const events = await collect(
      adapter({ idleTimeoutMs: 100 }).stream(userRequest('go'), new AbortController().signal),
    );

    expect(completionOf(events)).toMatchObject({ text: 'done', finishReason: 'stop' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('tool calls', () => {
  it('assembles parallel tool calls streamed as OpenAI-style fragments', async () => {
    const calls = [
      { id: 'call_a', name: 'read_file', arguments: '{"path":"src/main.ts","lines":[1,40]}' },
      { id: 'call_b', name: 'run_command', arguments: '{"command":"npm test -- --run"}' },
    ];
    server.push(toolCallTurn(calls, { reasoning: ['I need both.'] }));

    const events = await collect(
      adapter().stream(userRequest('look'), new AbortController().signal),
    );

    const deltas = events.filter((event) => event.type === 'tool_call_delta');
    expect(deltas[0]).toEqual({
      type: 'tool_call_delta',
      index: 0,
      id: 'call_a',
      name: 'read_file',
      argumentsDelta: '',
    });
    expect(deltas.length).toBeGreaterThan(4);
    expect(argumentsByIndex(events)).toEqual(calls.map((call) => call.arguments));
    expect(completionOf(events)).toEqual({
      text: '',
      reasoning: 'I need both.',
      toolCalls: calls,
      finishReason: 'tool_calls',
      native: { reasoning_content: 'I need both.' },
    });
  });

  it('assembles Ollama-style whole calls without an index, even when the turn ends with stop', async () => {
    const calls = [
      { id: 'call_1', name: 'list_dir', arguments: '{"path":"."}' },
      { id: 'call_2', name: 'read_file', arguments: '{"path":"README.md"}' },
    ];
    server.push(toolCallTurn(calls, { style: 'whole', finishReason: 'stop' }));

    const events = await collect(
      adapter({ provider: 'ollama' }).stream(userRequest('look'), new AbortController().signal),
    );

    expect(events.filter((event) => event.type === 'tool_call_delta')).toEqual([
      {
        type: 'tool_call_delta',
        index: 0,
        id: 'call_1',
        name: 'list_dir',
        argumentsDelta: '{"path":"."}',
      },
      {
        type: 'tool_call_delta',
        index: 1,
        id: 'call_2',
        name: 'read_file',
        argumentsDelta: '{"path":"README.md"}',
      },
    ]);
    expect(completionOf(events)).toMatchObject({ toolCalls: calls, finishReason: 'stop' });
  });

  it('tells calls apart by id when every call comes with index 0', async () => {
    const call = (id: string, name: string, args: string) => ({
      delta: {
        tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }],
      },
    });
    server.push({
      kind: 'stream',
      items: [call('c1', 'list_dir', '{"path":"a"}'), call('c2', 'list_dir', '{"path":"b"}')],
      finishReason: 'tool_calls',
    });

    const events = await collect(
      adapter({ provider: 'ollama' }).stream(userRequest('look'), new AbortController().signal),
    );

    expect(completionOf(events).toolCalls).toEqual([
      { id: 'c1', name: 'list_dir', arguments: '{"path":"a"}' },
      { id: 'c2', name: 'list_dir', arguments: '{"path":"b"}' },
    ]);
  });

  it('gives a call the server sent without an id one the tool result can refer to', async () => {
    const fn = { name: 'list_dir', arguments: '{}' };
    server.push({
      kind: 'stream',
      items: [{ delta: { tool_calls: [{ index: 0, type: 'function', function: fn }] } }],
      finishReason: 'tool_calls',
    });

    const events = await collect(
      adapter({ provider: 'generic' }).stream(userRequest('look'), new AbortController().signal),
    );

    expect(completionOf(events).toolCalls).toEqual([{ id: 'call_0', ...fn }]);
  });
});

describe('usage', () => {
  it('reads DeepSeek usage from the finishing chunk, cache and reasoning counts included', async () => {
    const usage = {
      prompt_tokens: 120,
      completion_tokens: 30,
      total_tokens: 150,
      prompt_cache_hit_tokens: 100,
      prompt_cache_miss_tokens: 20,
      completion_tokens_details: { reasoning_tokens: 12 },
    };
    server.push(textTurn('ok', { usage, usageStyle: 'final-chunk' }));

    const events = await collect(adapter().stream(userRequest('hi'), new AbortController().signal));

    expect(completionOf(events).usage).toEqual({
      promptTokens: 120,
      completionTokens: 30,
      totalTokens: 150,
      reasoningTokens: 12,
      cacheHitTokens: 100,
      cacheMissTokens: 20,
      raw: usage,
    });
  });

  it('reads OpenAI usage from the separate choices-less chunk and invents no cache misses', async () => {
    const usage = {
      prompt_tokens: 50,
      completion_tokens: 8,
      total_tokens: 58,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    server.push(textTurn('ok', { usage, usageStyle: 'separate-chunk' }));

    const events = await collect(
      adapter({ provider: 'openai' }).stream(userRequest('hi'), new AbortController().signal),
    );

    expect(completionOf(events).usage).toEqual({
      promptTokens: 50,
      completionTokens: 8,
      totalTokens: 58,
      reasoningTokens: 0,
      cacheHitTokens: 32,
      raw: usage,
    });
  });

  it('leaves usage absent when the provider sends none', async () => {
    server.push(textTurn('ok'));

    const events = await collect(adapter().stream(userRequest('hi'), new AbortController().signal));

    expect(completionOf(events)).not.toHaveProperty('usage');
  });
});

describe('turns that are failures', () => {
  it('fails a refusal without retrying it', async () => {
    server.push({
      kind: 'stream',
      items: [{ delta: { role: 'assistant', refusal: "I can't help." } }],
    });

    const events = await collect(
      adapter({ provider: 'openai' }).stream(userRequest('x'), new AbortController().signal),
    );

    expect(events).toEqual([
      { type: 'failed', error: { class: 'refusal', message: "I can't help.", retryable: false } },
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('fails finish_reason content_filter as a refusal without retrying it', async () => {
    server.push(textTurn('Some', { finishReason: 'content_filter' }));

    const events = await collect(adapter().stream(userRequest('x'), new AbortController().signal));

    expect(events.at(-1)).toMatchObject({
      type: 'failed',
      error: { class: 'refusal', retryable: false },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries finish_reason insufficient_system_resource as a server failure', async () => {
    server.push(
      textTurn('Par', { finishReason: 'insufficient_system_resource' }),
      textTurn('Full'),
    );

    const events = await collect(
      adapter({ retryBaseDelayMs: 1 }).stream(userRequest('x'), new AbortController().signal),
    );

    expect(typesOf(events)).toEqual(['text', 'retry', 'text', 'completed']);
    expect(events[1]).toMatchObject({ type: 'retry', reason: 'server', attempt: 2 });
    expect(completionOf(events).text).toBe('Full');
  });

  it('ends with maxAttempts exhausted as a failed server turn when the provider keeps aborting', async () => {
    server.push(
      textTurn('a', { finishReason: 'aborted' }),
      textTurn('b', { finishReason: 'aborted' }),
    );

    const events = await collect(
      adapter({ maxAttempts: 2, retryBaseDelayMs: 1 }).stream(
        userRequest('x'),
        new AbortController().signal,
      ),
    );

    const failure = failureOf(events);
    expect(failure).toMatchObject({ class: 'server', retryable: true });
    expect(failure.message).toContain('(after 2 attempts)');
  });
});
