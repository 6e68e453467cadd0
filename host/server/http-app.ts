/**
 * The host's HTTP app (PROTOCOL.md section 8): health and the loopback admin surface.
 * The channel endpoint `/v1/ws` is served by the upgrade handler beside it.
 */
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { PROTOCOL_VERSION } from '../../protocol/index.js';
import { adminRoutes, type AdminOptions } from './admin-routes.js';

export interface HttpAppOptions {
  hostId: string;
  version: string;
  admin: AdminOptions;
}

export function createHttpApp(options: HttpAppOptions): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/v1/health', (c) =>
    c.json({
      ok: true,
      hostId: options.hostId,
      version: options.version,
      protocol: PROTOCOL_VERSION,
    }),
  );
  app.route('/', adminRoutes(options.admin));
  app.notFound((c) =>
    c.json({ ok: false, error: { code: 'not_found', message: 'no such endpoint' } }, 404),
  );
  return app;
}
