/**
 * A real OpenAI-compatible HTTP server for tests: the model is a script of responses the
 * test queues, answered in order over real sockets in the exact Chat Completions SSE
 * format. Every request is recorded, so tests can assert what the model was sent.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** One item of a streamed turn: a chunk's delta, an SSE comment, or a raw `data:` payload. */
export type TurnItem = { delta: Record<string, unknown> } | { comment: string } | { data: string };

/** A streamed assistant turn, with the faults a real server shows. */
export interface StreamTurn {
  kind: 'stream';
  items: TurnItem[];
  /** Finish reason of the finishing chunk; null sends no finishing chunk. Default `stop`. */
  finishReason?: string | null;
  usage?: Record<string, unknown>;
  /** On the finishing chunk (DeepSeek, default) or in a `choices: []` chunk (OpenAI). */
  usageStyle?: 'final-chunk' | 'separate-chunk';
  /** Send `data: [DONE]` at the end (default true). */
  done?: boolean;
  /** Pause before each frame (slow drip). */
  delayMs?: number;
  /** Sends nothing (not even headers) until this settles: a test's gate on its own step. */
  heldUntil?: Promise<unknown>;
  /** Send this many frames, then send nothing more and hold the socket until the client leaves. */
  stallAfter?: number;
  /** Send this many frames, then destroy the socket. */
  dropAfter?: number;
  model?: string;
}

/** An error answer in OpenAI's `{error: {message, type, code}}` form. */
export interface ErrorReply {
  kind: 'error';
  status: number;
  error: { message: string; type: string; code: string | null };
  headers?: Record<string, string>;
}

/**
 * How a recorded answer is written to the socket: in one write, one SSE event (up to and
 * including its blank line) per write, or one byte per write (UTF-8 characters split).
 */
export type WriteSplit = 'whole' | 'events' | 'bytes';

/** A recorded answer replayed byte for byte: a stream (`.sse`) or an error body (`.json`). */
export interface RawReply {
  kind: 'raw';
  status: number;
  headers: Record<string, string>;
  body: string;
  split?: WriteSplit;
}

export type ScriptedResponse = StreamTurn | ErrorReply | RawReply;

/**
 * A response made from the request it answers: for a turn that names what only the
 * request says (a path the host put in the prompt).
 */
export type ScriptedAnswer = ScriptedResponse | ((body: ChatBody) => ScriptedResponse);

const chatBodySchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.string() })),
});

/** The body of a chat request as the server received it; other fields stay `unknown`. */
export type ChatBody = z.infer<typeof chatBodySchema>;

/** One request the server received. `body` is undefined unless it was a valid chat body. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatBody | undefined;
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** Base URL for the SDK, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues responses; each chat request takes the next one. */
  push(...responses: ScriptedAnswer[]): void;
  /** Responses still queued. */
  readonly pending: number;
  /** The chat request bodies received, in order. */
  chatBodies(): ChatBody[];
  /** Stops listening and destroys every open socket. */
  close(): Promise<void>;
  /** {@link ScriptedModelServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const MODEL_PATHS = new Set(['/v1/models', '/models']);

/** Starts a server on 127.0.0.1, port 0. `models` answers `GET /v1/models`. */
export async function startScriptedModelServer(
  options: { models?: string[] } = {},
): Promise<ScriptedModelServer> {
  const models = options.models ?? ['scripted-model'];
  const queue: ScriptedAnswer[] = [];
  const requests: RecordedRequest[] = [];

  const answer = (req: IncomingMessage, res: ServerResponse, rawBody: string): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const parsed = chatBodySchema.safeParse(parseJson(rawBody));
    const body = parsed.success ? parsed.data : undefined;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    if (req.method === 'GET' && MODEL_PATHS.has(path)) {
      const data = models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || !CHAT_PATHS.has(path)) {
      return sendReply(res, errorReply(404, `no route for ${req.method} ${path}`));
    }
    if (!body) return sendReply(res, errorReply(400, 'not a chat completion request body'));
    const queued = queue.shift();
    const next = typeof queued === 'function' ? queued(body) : queued;
    if (!next) {
      const message = `scripted model server: script exhausted (request #${requests.length} has no response queued)`;
      return sendReply(res, errorReply(500, message, { code: 'script_exhausted' }));
    }
    if (next.kind === 'raw') return void sendRaw(res, next);
    if (next.kind === 'error') return sendReply(res, next);
    if (body.stream === true) return void streamTurn(res, next, body.model);
    sendJson(res, 200, completionOf(next, body.model));
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => answer(req, res, Buffer.concat(parts).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...responses) => queue.push(...responses),
    get pending() {
      return queue.length;
    },
    chatBodies: () => requests.flatMap((request) => (request.body ? [request.body] : [])),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sendReply(res: ServerResponse, reply: ErrorReply): void {
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(JSON.stringify({ error: reply.error }));
}

/** The pieces `body` is written in under `split`. */
export function writesOf(body: string, split: WriteSplit): Buffer[] {
  const bytes = Buffer.from(body, 'utf8');
  if (split === 'whole') return [bytes];
  if (split === 'bytes') return [...bytes].map((byte) => Buffer.from([byte]));
  // Each event with the blank line that ends it (LF or CRLF), as a server flushes it.
  return (body.match(/[\s\S]*?(?:\r?\n\r?\n|$)/g) ?? [])
    .filter((event) => event !== '')
    .map((event) => Buffer.from(event, 'utf8'));
}

async function sendRaw(res: ServerResponse, reply: RawReply): Promise<void> {
  res.writeHead(reply.status, reply.headers);
  res.flushHeaders();
  for (const piece of writesOf(reply.body, reply.split ?? 'whole')) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(piece, () => resolve()));
  }
  res.end();
}

/** The SSE frames of `turn`, exactly as they go on the wire. */
function framesOf(turn: StreamTurn, requestedModel: string): string[] {
  const base = {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: turn.model ?? requestedModel,
  };
  // OpenAI sends `usage: null` on every chunk before the separate usage chunk.
  const separateUsage = turn.usage !== undefined && turn.usageStyle === 'separate-chunk';
  const chunk = (choices: unknown[], usage?: Record<string, unknown> | null): string =>
    `data: ${JSON.stringify({ ...base, choices, ...(usage !== undefined && { usage }) })}\n\n`;
  const unusedUsage = separateUsage ? null : undefined;
  const frames = turn.items.map((item) => {
    if ('comment' in item) return `: ${item.comment}\n\n`;
    if ('data' in item) return `data: ${item.data}\n\n`;
    const choice = { index: 0, delta: item.delta, logprobs: null, finish_reason: null };
    return chunk([choice], unusedUsage);
  });
  const finishReason = turn.finishReason === undefined ? 'stop' : turn.finishReason;
  if (finishReason !== null) {
    const choice = { index: 0, delta: {}, logprobs: null, finish_reason: finishReason };
    frames.push(chunk([choice], separateUsage ? null : turn.usage));
  }
  if (separateUsage) frames.push(chunk([], turn.usage));
  if (turn.done !== false) frames.push('data: [DONE]\n\n');
  return frames;
}

async function streamTurn(res: ServerResponse, turn: StreamTurn, model: string): Promise<void> {
  await turn.heldUntil?.catch(() => undefined);
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const frames = framesOf(turn, model);
  for (let sent = 0; sent <= frames.length; sent++) {
    if (sent === turn.stallAfter) return; // the socket stays open until the client gives up
    if (sent === turn.dropAfter) return void res.socket?.destroy();
    const frame = frames[sent];
    if (frame === undefined) break;
    if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
    if (res.destroyed) return;
    // Wait until the frame is handed to the socket, so a drop right after cannot lose it.
    await new Promise<void>((resolve) => res.write(frame, () => resolve()));
  }
  res.end();
}

/** A non-streaming answer: the turn's deltas joined into one message. */
function completionOf(turn: StreamTurn, model: string): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: '' };
  const calls: Array<{
    id: string;
    type: 'function';
    function: { name: string; arguments: string };
  }> = [];
  for (const item of turn.items) {
    if (!('delta' in item)) continue;
    for (const [field, value] of Object.entries(item.delta)) {
      if (field === 'tool_calls') {
        for (const fragment of z.array(toolCallFragmentSchema).parse(value)) {
          const call = (calls[fragment.index ?? calls.length] ??= {
            id: '',
            type: 'function',
            function: { name: '', arguments: '' },
          });
          call.id ||= fragment.id ?? '';
          call.function.name ||= fragment.function?.name ?? '';
          call.function.arguments += fragment.function?.arguments ?? '';
        }
      } else if (typeof value === 'string' && field !== 'role') {
        message[field] = (typeof message[field] === 'string' ? message[field] : '') + value;
      }
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  const choice = { index: 0, message, logprobs: null, finish_reason: turn.finishReason ?? 'stop' };
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: turn.model ?? model,
    choices: [choice],
    usage: turn.usage,
  };
}

const toolCallFragmentSchema = z.object({
  index: z.number().optional(),
  id: z.string().optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});

/** Options of the turn builders: StreamTurn fields, plus reasoning to stream first. */
export type TurnOptions = Partial<Omit<StreamTurn, 'kind' | 'items'>> & {
  reasoning?: string[];
  /** Where reasoning arrives: DeepSeek's `reasoning_content` (default) or Ollama's `reasoning`. */
  reasoningField?: 'reasoning_content' | 'reasoning';
};

/** A tool call to script; `arguments` is the raw JSON text the model produces. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
}

function buildTurn(options: TurnOptions, body: TurnItem[]): StreamTurn {
  const { reasoning = [], reasoningField = 'reasoning_content', ...turn } = options;
  const items: TurnItem[] = [
    { delta: { role: 'assistant', content: '' } },
    ...reasoning.map((piece) => ({ delta: { [reasoningField]: piece } })),
    ...body,
  ];
  return { kind: 'stream', items, ...turn };
}

/** A text answer streamed in pieces, e.g. `textTurn(['hel', 'lo'])`. */
export function textTurn(pieces: string | string[], options: TurnOptions = {}): StreamTurn {
  const text = typeof pieces === 'string' ? [pieces] : pieces;
  return buildTurn(
    options,
    text.map((piece) => ({ delta: { content: piece } })),
  );
}

/**
 * A tool-call turn (finish reason `tool_calls` unless given). `fragments` (default) streams
 * each call as OpenAI does: a header with index, id, type, name and empty arguments, then
 * 7-character argument fragments with the index only. `whole` sends each call complete in
 * one chunk without an index, as Ollama does.
 */
export function toolCallTurn(
  calls: ScriptedToolCall[],
  options: TurnOptions & { style?: 'fragments' | 'whole' } = {},
): StreamTurn {
  const { style = 'fragments', ...rest } = options;
  const items = calls.flatMap((call, index): TurnItem[] => {
    const fn = { name: call.name, arguments: call.arguments };
    if (style === 'whole') {
      return [{ delta: { tool_calls: [{ id: call.id, type: 'function', function: fn }] } }];
    }
    const header = { index, id: call.id, type: 'function', function: { ...fn, arguments: '' } };
    const parts = call.arguments.match(/[\s\S]{1,7}/g) ?? [];
    const fragments = parts.map((part) => ({ index, function: { arguments: part } }));
    return [header, ...fragments].map((fragment) => ({ delta: { tool_calls: [fragment] } }));
  });
  return buildTurn({ finishReason: 'tool_calls', ...rest }, items);
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'invalid_request_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** An error answer, e.g. `errorReply(429, 'slow down', {headers: {'retry-after-ms': '20'}})`. */
export function errorReply(
  status: number,
  message: string,
  options: { code?: string; type?: string; headers?: Record<string, string> } = {},
): ErrorReply {
  const type = options.type ?? ERROR_TYPES[status] ?? 'server_error';
  const error = { message, type, code: options.code ?? null };
  return { kind: 'error', status, error, ...(options.headers && { headers: options.headers }) };
}

/**
 * The content of each user message of a chat body as received: a string, or the content
 * parts (`{type: "text", text}`, `{type: "image_url", image_url: {url}}`) exactly.
 */
export function userContents(body: ChatBody): unknown[] {
  return body.messages.flatMap((message) => (message.role === 'user' ? [message['content']] : []));
}

/**
 * An answer like DeepSeek's to a request with an image part (its API takes text only, and
 * its JSON parser names the part it does not know). The host must fail the run with
 * `unsupported_input` and not retry.
 */
export function imagesRefusedReply(): ErrorReply {
  return errorReply(
    400,
    'Failed to deserialize the JSON body into the target type: messages[1]: unknown variant `image_url`, expected `text` at line 1 column 2144',
  );
}
