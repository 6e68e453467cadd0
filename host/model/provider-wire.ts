/**
 * Provider dialects of the wire rewritten into the shapes the openai SDK reads, below the
 * SDK (its `fetch`), so their messages reach the error classifier instead of being lost:
 * - error bodies without an `error` key: vLLM ≤ 0.6 and SGLang `{"object": "error",
 *   "message", "code"}`, DashScope's native `{"code", "message"}`; and Gemini's JSON array
 *   `[{"error": {...}}]`; each becomes `{"error": {...}}`;
 * - llama.cpp builds before September 2025 (PR ggml-org/llama.cpp#16109) send a mid-stream
 *   error as a non-standard `error:` SSE field, which SSE readers drop; it becomes
 *   `data: {"error": ...}`, which the SDK throws as an APIError.
 */
import { z } from 'zod';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const errorObjectSchema = z.looseObject({ message: z.unknown() });
const wrappedSchema = z.looseObject({ error: z.unknown() });
const vllmErrorSchema = z.looseObject({ object: z.literal('error'), message: z.unknown() });

/** A fetch that reads every provider's error and stream dialect as OpenAI's. */
export function dialectFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.ok) return withOpenAIErrorBody(response);
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') || response.body === null) return response;
    const body = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(errorFieldsAsData())
      .pipeThrough(new TextEncoderStream());
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function withOpenAIErrorBody(response: Response): Promise<Response> {
  const text = await response.text();
  const body = openAIErrorBody(text);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (body !== undefined) headers.set('content-type', 'application/json');
  return new Response(body ?? text, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** `{"error": {...}}` for a provider's error body, or undefined when it is not JSON of a known shape. */
function openAIErrorBody(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Gemini answers errors as a one-element array.
  const value: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  const wrapped = wrappedSchema.safeParse(value);
  if (wrapped.success) {
    const { error } = wrapped.data;
    if (errorObjectSchema.safeParse(error).success) return JSON.stringify({ error });
    if (typeof error === 'string') return JSON.stringify({ error: { message: error } });
    return undefined;
  }
  const vllm = vllmErrorSchema.safeParse(value);
  if (vllm.success) {
    const { object: _object, ...error } = vllm.data;
    return JSON.stringify({ error });
  }
  if (errorObjectSchema.safeParse(value).success) return JSON.stringify({ error: value });
  return undefined;
}

/**
 * Rewrites `error:` SSE lines as `data:` lines holding `{"error": ...}`; every other line
 * passes unchanged. Lines are held back only until their end arrives, whatever the split.
 */
function errorFieldsAsData(): TransformStream<string, string> {
  let pending = '';
  const rewrite = (line: string): string => {
    if (!line.startsWith('error:')) return line;
    const payload = line.slice('error:'.length).trim();
    const ending = line.endsWith('\r') ? '\r' : '';
    return `data: {"error":${errorPayload(payload)}}${ending}`;
  };
  return new TransformStream({
    transform(text, controller) {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      if (lines.length > 0) controller.enqueue(lines.map(rewrite).join('\n') + '\n');
    },
    flush(controller) {
      if (pending !== '') controller.enqueue(rewrite(pending));
    },
  });
}

function errorPayload(payload: string): string {
  try {
    const value: unknown = JSON.parse(payload);
    if (errorObjectSchema.safeParse(value).success) return JSON.stringify(value);
  } catch {
    // not JSON: the payload is the message itself
  }
  return JSON.stringify({ message: payload });
}
