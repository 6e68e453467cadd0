/**
 * The host's HTTP app (PROTOCOL.md section 8). Health for now; the channel endpoint,
 * the PWA and the admin page attach here.
 */
import { Hono } from 'hono';
import { PROTOCOL_VERSION } from '../../protocol/index.js';

export interface HttpAppOptions {
  hostId: string;
  version: string;
}

export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  app.get('/v1/health', (c) =>
    c.json({
      ok: true,
      hostId: options.hostId,
      version: options.version,
      protocol: PROTOCOL_VERSION,
    }),
  );
  app.notFound((c) =>
    c.json({ ok: false, error: { code: 'not_found', message: 'no such endpoint' } }, 404),
  );
  return app;
}
