/**
 * `GET /v1/download/<jwt>`: serves the file a download link names, once, as an
 * attachment, on an HTTPS or loopback origin only.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { TetherError } from '../../protocol/index.js';
import { DOWNLOAD_PATH, type DownloadLinks } from './download-links.js';
import { requestOrigin, servesDownloads } from './download-origin.js';

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
function contentDisposition(filename: string): string {
  const base = filename.split('/').at(-1) || 'download';
  const ascii = base.replace(/[^A-Za-z0-9._-]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(base)}`;
}

/** RFC 5987 `value-chars`: encodeURIComponent leaves `'()*!` bare, which the RFC does not allow. */
function encodeRfc5987(text: string): string {
  return encodeURIComponent(text).replace(
    /['()*!]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function downloadRoutes(links: DownloadLinks): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get(`${DOWNLOAD_PATH}:token`, async (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    // A HEAD would spend the single use and deliver nothing.
    if (c.req.method === 'HEAD') {
      c.header('Allow', 'GET');
      return c.body(null, 405);
    }
    if (!servesDownloads(requestOrigin(c.env.incoming))) {
      throw new TetherError(
        'invalid_state',
        'downloads are served only over HTTPS or on this computer',
        {
          details: { state: 'insecure_origin' },
        },
      );
    }
    const file = await links.redeem(c.req.param('token'));
    let size: number;
    try {
      const info = await stat(file.path);
      if (!info.isFile()) throw new Error('not a regular file');
      size = info.size;
    } catch (cause) {
      throw new TetherError('not_found', 'the file is gone', { cause });
    }
    c.header('Content-Type', file.contentType);
    c.header('Content-Length', String(size));
    c.header('Content-Disposition', contentDisposition(file.filename));
    if (size === 0) return c.body(null, 200);
    // Exactly the stated length, even if the file grows meanwhile.
    const stream = createReadStream(file.path, { end: size - 1 });
    return c.body(Readable.toWeb(stream) as ReadableStream<Uint8Array>);
  });
  return app;
}
