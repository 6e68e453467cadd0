/**
 * The HTTP server's request listener: the hono app through @hono/node-server, imported at
 * the first request. Importing the adapter reads Node's fetch classes (Request, Response,
 * Headers), which loads Node's fetch implementation (undici, ~6 MB resident): a host that
 * no one has sent a request since it started does not need it (docs/performance.md,
 * "Idle RSS"). A channel's WebSocket upgrade does not come through here.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { getRequestListener } from '@hono/node-server';
import type { Logger } from '../log/index.js';

type FetchCallback = Parameters<typeof getRequestListener>[0];

/**
 * Hands every request to `fetch` (the hono app's) once the adapter has loaded; `hostname`
 * stands in for a missing Host header, as @hono/node-server's `serve` does with it.
 */
export function httpRequestListener(
  fetch: FetchCallback,
  options: { hostname: string; log: Logger },
): RequestListener {
  let listener: Promise<RequestListener> | undefined;
  return (request: IncomingMessage, response: ServerResponse) => {
    listener ??= import('@hono/node-server').then((adapter) =>
      adapter.getRequestListener(fetch, { hostname: options.hostname }),
    );
    listener.then(
      (handle) => handle(request, response),
      (error: unknown) => {
        options.log.error('the HTTP adapter did not load', { error: String(error) });
        response.writeHead(500).end();
      },
    );
  };
}
