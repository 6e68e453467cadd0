/**
 * The scripted server is the model every host test talks to: check that it speaks the
 * wire format exactly, records what it receives, and fails loudly when the script runs out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  errorReply,
  startScriptedModelServer,
  textTurn,
  toolCallTurn,
} from '../support/scripted-model-server.js';
import type { ScriptedModelServer } from '../support/scripted-model-server.js';

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer({ models: ['model-a', 'model-b'] });
});

afterEach(async () => {
  await server.close();
});

function post(body: unknown, path = '/chat/completions'): Promise<Response> {
  return fetch(server.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  });
}

describe('scripted model server', () => {
  it('streams a turn as exact OpenAI SSE frames, usage in a separate chunk when asked', async () => {
    server.push(textTurn('hi', { usage: { total_tokens: 3 }, usageStyle: 'separate-chunk' }));

    const response = await post({ model: 'm', messages: [], stream: true });

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '');
    const base = {
      id: 'chatcmpl-scripted',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'm',
    };
    const choice = (delta: object, finish: string | null) => ({
      index: 0,
      delta,
      logprobs: null,
      finish_reason: finish,
    });
    expect(
      frames.map((frame) =>
        frame === 'data: [DONE]' ? frame : (JSON.parse(frame.slice(6)) as unknown),
      ),
    ).toEqual([
      { ...base, choices: [choice({ role: 'assistant', content: '' }, null)], usage: null },
      { ...base, choices: [choice({ content: 'hi' }, null)], usage: null },
      { ...base, choices: [choice({}, 'stop')], usage: null },
      { ...base, choices: [], usage: { total_tokens: 3 } },
      'data: [DONE]',
    ]);
  });

  it('answers a non-streaming request with the turn joined into one message', async () => {
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' };
    server.push(toolCallTurn([call], { reasoning: ['Read ', 'it.'] }));

    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] });

    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: {
            role: 'assistant',
            content: '',
            reasoning_content: 'Read it.',
            tool_calls: [
              {
                id: 'c1',
                type: 'function',
                function: { name: 'read_file', arguments: call.arguments },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('records every request with its path, headers and parsed body', async () => {
    server.push(textTurn('a'));

    await (
      await post(
        { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [] },
        '/chat/completions',
      )
    ).text();

    expect(server.requests).toMatchObject([
      {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer k' },
        body: { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [] },
      },
    ]);
    expect(server.pending).toBe(0);
  });

  it('answers a scripted error with its status, body and headers', async () => {
    server.push(
      errorReply(429, 'slow down', { code: 'rate_limit', headers: { 'retry-after': '2' } }),
    );

    const response = await post({ model: 'm', messages: [] });

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({
      error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit' },
    });
  });

  it('fails loudly with 500 when the script is exhausted', async () => {
    const response = await post({ model: 'm', messages: [] });

    expect(response.status).toBe(500);
    expect(await response.text()).toContain('script exhausted');
  });

  it('lists its models on GET /v1/models', async () => {
    const response = await fetch(`${server.baseUrl}/models`);

    expect(await response.json()).toMatchObject({
      object: 'list',
      data: [{ id: 'model-a' }, { id: 'model-b' }],
    });
  });
});
