/**
 * The host's HTTP app (docs/protocol.md §8): health, download links, the local CA's
 * certificate when serving HTTPS with it, the loopback admin surface, and the PWA.
 * The channel endpoint `/v1/ws` is served by the upgrade handler beside it.
 */
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PROTOCOL_VERSION, TetherError } from '../../protocol/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { adminRoutes, type AdminOptions } from './admin-routes.js';
import type { DownloadLinks } from './download-links.js';
import { downloadRoutes } from './download-route.js';
import { defaultAppDir, staticFiles } from './static-files.js';

/** The local CA's certificate, offered for devices to trust (only when serving HTTPS with it). */
export interface LocalCaDownloads {
  /** PEM text of the CA certificate (`/ca.pem`). */
  pem: string;
  /** The iOS configuration profile holding it (`/ca.mobileconfig`). */
  mobileconfig: string;
}

export interface HttpAppOptions {
  hostId: string;
  version: string;
  admin: AdminOptions;
  /** The built PWA's folder (default: dist/app beside the compiled host). */
  appDir?: string;
  /** Serves `GET /v1/download/<jwt>` for the links it issues; without it, no downloads. */
  downloads?: DownloadLinks;
  /** Present only when the host serves HTTPS with its own local CA. */
  localCa?: LocalCaDownloads;
  /** Where internal failures are logged with their stack (default: stderr). */
  log?: Logger;
}

/**
 * The one error answer of every HTTP route: `{ ok: false, error }` with the code's status.
 * Anything but a TetherError is `internal`, logged with its cause's stack.
 */
function errorAnswer(c: Context, error: unknown, log: Logger): Response {
  const failure = TetherError.from(error);
  if (failure.code === 'internal') {
    const { cause } = failure;
    log.error('request failed', {
      method: c.req.method,
      path: c.req.path,
      error: cause instanceof Error ? (cause.stack ?? String(cause)) : String(cause),
    });
  }
  return c.json({ ok: false, error: failure.toWire() }, failure.httpStatus as ContentfulStatusCode);
}

export function createHttpApp(options: HttpAppOptions): Hono<{ Bindings: HttpBindings }> {
  const log = options.log ?? createLogger({ level: 'warn' });
  const app = new Hono<{ Bindings: HttpBindings }>();
  // Routes throw TetherError; Hono's own exceptions keep the answer they carry.
  app.onError((error, c) =>
    error instanceof HTTPException ? error.getResponse() : errorAnswer(c, error, log),
  );
  app.get('/v1/health', (c) =>
    c.json({
      ok: true,
      hostId: options.hostId,
      version: options.version,
      protocol: PROTOCOL_VERSION,
    }),
  );
  if (options.downloads !== undefined) app.route('/', downloadRoutes(options.downloads));
  const { localCa } = options;
  if (localCa !== undefined) {
    app.get('/ca.pem', (c) => {
      c.header('Content-Type', 'application/x-pem-file');
      c.header('Content-Disposition', 'attachment; filename="tether-local-ca.pem"');
      return c.body(localCa.pem);
    });
    app.get('/ca.mobileconfig', (c) => {
      c.header('Content-Type', 'application/x-apple-aspen-config');
      c.header('Content-Disposition', 'attachment; filename="tether-local-ca.mobileconfig"');
      return c.body(localCa.mobileconfig);
    });
  }
  app.route('/', adminRoutes(options.admin));
  app.get('*', staticFiles(options.appDir ?? defaultAppDir()));
  app.notFound((c) => errorAnswer(c, new TetherError('not_found', 'no such endpoint'), log));
  return app;
}
