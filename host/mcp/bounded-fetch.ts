/**
 * The fetch a streamable-HTTP MCP server is reached through: an answer may not run past
 * {@link MAX_MESSAGE_BYTES} without an end of message, as a stdio server's line may not
 * (group-stdio-transport.ts). A JSON answer is one message; an event stream's messages end
 * at a blank line, so a long-lived stream of small notifications goes on. Past the bound
 * the body errors, the SDK drops the connection and it is restarted like any other loss,
 * instead of the host holding whatever a server (or whoever answers at its URL) sends.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** As a stdio server's line (group-stdio-transport.ts). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * A body that errors once `maxBytes` come without a blank line (`\n\n` or `\r\n\r\n`)
 * in an event stream, or once `maxBytes` come in all in any other answer: the SDK reads a
 * JSON answer, or an error's text, whole (`response.json()`, `response.text()`), and JSON
 * may hold a blank line between any two of its values.
 */
function boundedBody(body: ReadableStream<Uint8Array>, maxBytes: number, events: boolean) {
  let sinceBoundary = 0;
  let previous = -1;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!events) {
          sinceBoundary += chunk.length;
          if (sinceBoundary > maxBytes) {
            controller.error(
              new Error(`the MCP server sent a message over ${maxBytes} bytes; it was cut off`),
            );
            return;
          }
          controller.enqueue(chunk);
          return;
        }
        for (const byte of chunk) {
          if (byte === CR) continue;
          sinceBoundary = byte === LF && previous === LF ? 0 : sinceBoundary + 1;
          previous = byte;
        }
        if (sinceBoundary > maxBytes) {
          controller.error(
            new Error(`the MCP server sent a message over ${maxBytes} bytes; it was cut off`),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** `fetch`, whose answers' bodies are bounded as above. */
export function boundedFetch(
  maxBytes = MAX_MESSAGE_BYTES,
  base: FetchLike = (url, init) => fetch(url, init),
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // A redirect's body is never read (the SDK follows it within the origin, or fails).
    if (response.body === null || (response.status >= 300 && response.status < 400)) {
      return response;
    }
    // As the SDK reads the type (its mediaTypeEssence): only an event stream has messages.
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    const events = response.ok && type === 'text/event-stream';
    return new Response(boundedBody(response.body, maxBytes, events), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
