/**
 * An OpenAI-compatible speech-to-text endpoint on loopback for tests: `POST
 * /v1/audio/transcriptions`, its multipart body parsed (the platform's own FormData
 * parser), every request recorded (model, language, response_format, the file's name, type
 * and bytes, the Authorization header), each answered from a script: a text, or an error
 * with a status and OpenAI's error body. `GET /v1/models` answers a list, for doctor.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one transcription request carried. */
export interface TranscriptionRequest {
  model: string | null;
  language: string | null;
  responseFormat: string | null;
  fileName: string | null;
  fileType: string | null;
  audio: Buffer;
  authorization: string | undefined;
}

/** A scripted answer: the text transcribed, or an error the endpoint gives. */
export type TranscriptionReply =
  { text: string } | { status: number; message: string; type?: string; code?: string };

export interface FakeTranscriptionServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL `tether voice set` takes. */
  readonly baseUrl: string;
  readonly requests: TranscriptionRequest[];
  /** Queues answers for the next requests; without any, it answers `defaultText`. */
  push(...replies: TranscriptionReply[]): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeTranscriptionServer(
  options: { defaultText?: string } = {},
): Promise<FakeTranscriptionServer> {
  const requests: TranscriptionRequest[] = [];
  const script: TranscriptionReply[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const url = request.url ?? '';
      if (request.method === 'GET' && url === '/v1/models') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: 'whisper-test' }] }));
        return;
      }
      if (request.method !== 'POST' || url !== '/v1/audio/transcriptions') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no route ${request.method} ${url}` } }));
        return;
      }
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        body: new Uint8Array(body),
      }).formData();
      const file = form.get('file');
      const field = (name: string) => {
        const value = form.get(name);
        return typeof value === 'string' ? value : null;
      };
      requests.push({
        model: field('model'),
        language: field('language'),
        responseFormat: field('response_format'),
        fileName: file instanceof File ? file.name : null,
        fileType: file instanceof File ? file.type : null,
        audio: file instanceof File ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0),
        authorization: request.headers.authorization,
      });
      const reply = script.shift() ?? { text: options.defaultText ?? 'Transcribed by the fake.' };
      if ('text' in reply) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ text: reply.text }));
        return;
      }
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: reply.message,
            type: reply.type ?? 'invalid_request_error',
            code: reply.code ?? null,
          },
        }),
      );
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`fake transcription server: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...replies) => script.push(...replies),
    close,
    [Symbol.asyncDispose]: close,
  };
}
