/**
 * A zero-latency OpenAI-compatible model for benchmarks: `POST /v1/chat/completions`
 * answers at once in the Chat Completions SSE format. The first `toolTurns` answers are
 * each one `list_directory {"path":"."}` call, every later one a short text. Request
 * bodies are read to the end, as a real server would, but never parsed.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running zero-latency model. */
export interface ZeroLatencyModel {
  /** Base URL for the SDK, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseUrl: string;
  /** Byte size of each chat request body, in order: the context as sent. */
  readonly requestBytes: readonly number[];
  /** Stops listening and destroys every open socket. */
  close(): Promise<void>;
}

const LIST_ARGUMENTS = '{"path":"."}';

/** One `data:` frame: a chunk with one choice, as OpenAI streams them. */
function frame(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const chunk = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A tool-call turn streamed as OpenAI does: a header, then 7-character argument fragments. */
function toolCallTurn(callId: string): string {
  const header = { index: 0, id: callId, type: 'function' };
  const fragments = LIST_ARGUMENTS.match(/.{1,7}/g) ?? [];
  return [
    frame({ role: 'assistant', content: '' }),
    frame({ tool_calls: [{ ...header, function: { name: 'list_directory', arguments: '' } }] }),
    ...fragments.map((part) =>
      frame({ tool_calls: [{ index: 0, function: { arguments: part } }] }),
    ),
    frame({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
}

const TEXT_TURN = [
  frame({ role: 'assistant', content: '' }),
  frame({ content: 'The workspace ' }),
  frame({ content: 'is listed.' }),
  frame({}, 'stop'),
  'data: [DONE]\n\n',
].join('');

function reply(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-cache' });
  res.end(body);
}

/** Starts the model on 127.0.0.1, port 0. */
export async function startZeroLatencyModel(toolTurns: number): Promise<ZeroLatencyModel> {
  const requestBytes: number[] = [];
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (part: Buffer) => (bytes += part.length));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        const error = { message: `no route for ${req.method} ${req.url}`, type: 'not_found_error' };
        return reply(res, 404, JSON.stringify({ error }), 'application/json');
      }
      requestBytes.push(bytes);
      const turn = requestBytes.length;
      const body = turn <= toolTurns ? toolCallTurn(`call_${turn}`) : TEXT_TURN;
      reply(res, 200, body, 'text/event-stream');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requestBytes,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
