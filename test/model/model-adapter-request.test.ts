/**
 * What each provider is sent, read off the wire by the scripted server: the exact body
 * (native fields replayed or withheld, the output-cap field, tools) and the auth header.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelAdapter } from '../../host/model/index.js';
import type { ModelMessage, ModelRequest, ProviderKind } from '../../host/model/index.js';
import { startScriptedModelServer, textTurn } from '../support/scripted-model-server.js';
import type { ScriptedModelServer } from '../support/scripted-model-server.js';
import { collect, completionOf } from './adapter-harness.js';

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

const readFile = {
  name: 'read_file',
  description: 'Reads a file of the workspace.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** A conversation with a tool-call turn (with reasoning) and a text turn (without). */
function history(native: Record<string, unknown>): ModelMessage[] {
  return [
    { role: 'system', content: 'You are careful.' },
    { role: 'user', content: 'What is in a.txt?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      native,
    },
    { role: 'tool', toolCallId: 'call_1', content: 'hello' },
    { role: 'assistant', content: 'It says hello.', toolCalls: [] },
    { role: 'user', content: 'And b.txt?' },
  ];
}

const sentToolCall = {
  id: 'call_1',
  type: 'function',
  function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
};

async function send(
  provider: ProviderKind,
  request: ModelRequest,
  extraBody?: Record<string, unknown>,
) {
  server.push(textTurn('ok'));
  const adapter = createModelAdapter({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test',
    provider,
    extraBody,
  });
  completionOf(await collect(adapter.stream(request, new AbortController().signal)));
  const [body] = server.chatBodies();
  if (!body) expect.fail('the server received no chat request');
  return body;
}

describe('DeepSeek', () => {
  it('with tools, replays every earlier reasoning_content, empty when there was none', async () => {
    const request: ModelRequest = {
      model: 'deepseek-v4-flash',
      messages: history({ reasoning_content: 'I should read a.txt.' }),
      tools: [readFile],
      maxOutputTokens: 512,
    };

    const body = await send('deepseek', request, { thinking: { type: 'enabled' } });

    expect(body).toEqual({
      thinking: { type: 'enabled' },
      model: 'deepseek-v4-flash',
      messages: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'What is in a.txt?' },
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'I should read a.txt.',
          tool_calls: [sentToolCall],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
        { role: 'assistant', content: 'It says hello.', reasoning_content: '' },
        { role: 'user', content: 'And b.txt?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: readFile }],
      tool_choice: 'auto',
      max_tokens: 512,
    });
  });

  it('without tools, sends no reasoning_content, tools or tool_choice', async () => {
    const request: ModelRequest = {
      model: 'deepseek-v4-flash',
      messages: history({ reasoning_content: 'I should read a.txt.' }),
      tools: [],
    };

    const body = await send('deepseek', request);

    expect(JSON.stringify(body.messages)).not.toContain('reasoning_content');
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('max_tokens');
  });
});

describe('OpenAI', () => {
  it('never gets reasoning_content or other native fields, and gets max_completion_tokens', async () => {
    const request: ModelRequest = {
      model: 'gpt-5.4',
      messages: history({ reasoning_content: 'from another provider', reasoning: 'x' }),
      tools: [readFile],
      maxOutputTokens: 256,
    };

    const body = await send('openai', request);

    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [sentToolCall],
    });
    expect(JSON.stringify(body)).not.toMatch(/reasoning/);
    expect(body.max_completion_tokens).toBe(256);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body.stream_options).toEqual({ include_usage: true });
  });
});

describe('Ollama and generic endpoints', () => {
  it('sends Ollama nothing extra and caps output with max_tokens', async () => {
    const request: ModelRequest = {
      model: 'qwen3:8b',
      messages: history({ reasoning: 'I should read a.txt.' }),
      tools: [readFile],
      maxOutputTokens: 128,
    };

    const body = await send('ollama', request);

    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [sentToolCall],
    });
    expect(body.max_tokens).toBe(128);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  // Issue 15, item 10: a router's `delta.index` (and other non-reasoning delta fields) were
  // echoed back to every generic endpoint.
  it('sends a generic endpoint back only the reasoning it returned, not other native fields', async () => {
    const native = { reasoning_content: 'kept', index: 0, provider_state: { turn: 1 } };
    const request: ModelRequest = { model: 'local', messages: history(native), tools: [readFile] };

    const body = await send('generic', request);

    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: 'kept',
      tool_calls: [sentToolCall],
    });
    expect(body.messages[4]).toEqual({ role: 'assistant', content: 'It says hello.' });
  });
});

describe('transport', () => {
  it('posts to /v1/chat/completions with the key as a bearer token', async () => {
    await send('generic', { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] });

    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('sends no Authorization header at all without a key (Ollama needs none)', async () => {
    server.push(textTurn('ok'));
    const adapter = createModelAdapter({ baseUrl: server.baseUrl, provider: 'ollama' });

    completionOf(
      await collect(
        adapter.stream({ model: 'm', messages: [], tools: [] }, new AbortController().signal),
      ),
    );

    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });

  it('detects the provider from the base URL when none is configured', () => {
    const detected = (baseUrl: string) => createModelAdapter({ baseUrl }).provider;

    expect(detected('https://api.deepseek.com')).toBe('deepseek');
    expect(detected('https://api.deepseek.com/v1')).toBe('deepseek');
    expect(detected('https://api.openai.com/v1')).toBe('openai');
    expect(detected('http://localhost:11434/v1')).toBe('ollama');
    expect(detected('http://ollama.lan:8080/v1')).toBe('ollama');
    expect(detected('http://127.0.0.1:8000/v1')).toBe('vllm');
    expect(detected('http://127.0.0.1:9999/v1')).toBe('generic');
    expect(
      createModelAdapter({ baseUrl: 'http://localhost:11434/v1', provider: 'generic' }).provider,
    ).toBe('generic');
  });
});
