/**
 * The PWA's files (docs/protocol.md §8, `GET /`): served from the built app folder with
 * a strict CSP, cache rules fit for a service worker, precompressed bodies, and a
 * fallback to index.html for the app's own routes. Nothing outside the folder is served.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Handler } from 'hono';

/**
 * Sent with every response of the app (and its 503 when it is not built). `connect-src`
 * allows any `ws:`/`wss:` origin because one app pairs with several hosts and opens each
 * one's `/v1/ws` (docs/security.md); `fetch` and script stay on this origin. No
 * `manifest-src`: WebKit does not know it (it logs the directive as unrecognized), and CSP
 * level 3 has the manifest fall back to `default-src 'self'`, the same rule in every engine.
 */
const APP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.map',
  '.webmanifest',
  '.svg',
  '.txt',
]);

/** Files the browser must revalidate every time: a stale one would pin an old app. */
const ALWAYS_REVALIDATE = new Set(['index.html', 'sw.js', 'registerSW.js', 'manifest.webmanifest']);

/** Paths that belong to the host, never to the app, even as a fallback. */
const HOST_PATHS = /^\/(v1\/|v1$|admin|ca\.)/;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Files above this size are streamed from disk rather than held (and compressed) in memory. */
const MAX_CACHED_BYTES = 4 * 1024 * 1024;
/** Files kept in memory at most (the app has about a dozen; older versions drop out first). */
const MAX_CACHED_FILES = 64;
/** Bodies smaller than this gain nothing from compression. */
const MIN_COMPRESS_BYTES = 1024;

/** The built app beside the compiled host: dist/host/server/*.js → dist/app. */
export function defaultAppDir(): string {
  return fileURLToPath(new URL('../../app', import.meta.url));
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  etag: string;
  body: Uint8Array<ArrayBuffer>;
  gzip?: Uint8Array<ArrayBuffer>;
  br?: Uint8Array<ArrayBuffer>;
}

type Encoding = 'br' | 'gzip' | 'identity';

/**
 * The URL path as folder segments, or null when it tries to leave the folder: a `..`
 * segment (plain or percent-encoded), an encoded slash or backslash, a NUL, or bad
 * percent-encoding. Read from the raw request line, before any URL normalisation.
 */
function pathSegments(rawUrl: string): string[] | null {
  const path = rawUrl.split(/[?#]/, 1)[0] ?? '';
  if (!path.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '..' || /[/\\\0]/.test(segment)) return null;
    if (segment === '' || segment === '.') continue;
    segments.push(segment);
  }
  return segments;
}

function preferredEncoding(accept: string | undefined): Encoding {
  const offered = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((v) => v !== undefined);
    offered.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const accepts = (name: string) => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return 'identity';
}

/** The real path of the regular file at `segments` inside `appDir`, or undefined. */
async function locate(appDir: string, segments: readonly string[]): Promise<string | undefined> {
  try {
    const root = await realpath(appDir);
    const file = await realpath(join(root, ...segments));
    if (!file.startsWith(root + sep)) return undefined;
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A small file's versions in memory, compressed once; a large one is streamed. */
type LoadFile = (file: string) => Promise<CachedFile | { stream: true; size: number }>;

/** The newest versions of the app's files, read and compressed once each. */
function fileCache(): LoadFile {
  const cache = new Map<string, CachedFile>();
  /** Versions being read and compressed now: parallel requests share the work. */
  const loading = new Map<string, Promise<CachedFile>>();

  const load: LoadFile = async (file) => {
    const info = await stat(file);
    if (info.size > MAX_CACHED_BYTES) return { stream: true, size: info.size };
    const cached = cache.get(file);
    if (cached?.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
    const key = `${file}\0${info.mtimeMs}\0${info.size}`;
    const pending = loading.get(key) ?? readAndCompress(file, info.mtimeMs);
    loading.set(key, pending);
    try {
      return await pending;
    } finally {
      loading.delete(key);
    }
  };

  const readAndCompress = async (file: string, mtimeMs: number): Promise<CachedFile> => {
    const body = new Uint8Array(await readFile(file));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    const entry: CachedFile = { mtimeMs, size: body.length, etag, body };
    if (COMPRESSIBLE.has(extname(file)) && body.length >= MIN_COMPRESS_BYTES) {
      // Once per file version, on the thread pool: quality 11 takes about a second for
      // the app's main bundle, which must not stall the event loop (and every channel).
      const [br, gz] = await Promise.all([
        brotliAsync(body, {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        }),
        gzipAsync(body, { level: 9 }),
      ]);
      entry.br = new Uint8Array(br);
      entry.gzip = new Uint8Array(gz);
    }
    // A rebuild while the host runs leaves old hashed names behind: keep the newest files.
    cache.delete(file);
    cache.set(file, entry);
    if (cache.size > MAX_CACHED_FILES) cache.delete(cache.keys().next().value!);
    return entry;
  };

  return load;
}

/** Answers `c` with `file` (at `relative` in the app), its caching and its encoding. */
async function serveFile(
  c: Context<{ Bindings: HttpBindings }>,
  load: LoadFile,
  file: string,
  relative: string,
): Promise<Response> {
  const name = relative.split('/').at(-1) ?? '';
  c.header('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
  c.header(
    'Cache-Control',
    relative.startsWith('assets/') && !ALWAYS_REVALIDATE.has(name)
      ? 'public, max-age=31536000, immutable'
      : 'no-cache',
  );
  const loaded = await load(file);
  if ('stream' in loaded) {
    c.header('Content-Length', String(loaded.size));
    return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>);
  }
  c.header('ETag', loaded.etag);
  if (loaded.gzip !== undefined) c.header('Vary', 'Accept-Encoding');
  if (c.req.header('if-none-match') === loaded.etag) return c.body(null, 304);
  const encoding = preferredEncoding(c.req.header('accept-encoding'));
  const body =
    encoding === 'br' && loaded.br !== undefined
      ? loaded.br
      : encoding !== 'identity' && loaded.gzip !== undefined
        ? loaded.gzip
        : loaded.body;
  if (body !== loaded.body) c.header('Content-Encoding', body === loaded.br ? 'br' : 'gzip');
  c.header('Content-Length', String(body.length));
  return c.body(body);
}

/**
 * Serves the app in `appDir` for GET and HEAD (Hono answers HEAD with the GET handler,
 * body dropped). Mount it after every host route: it answers `c.notFound()` for paths
 * that are the host's (`/v1/…`, `/admin…`, `/ca.…`).
 */
export function staticFiles(appDir: string): Handler<{ Bindings: HttpBindings }> {
  const load = fileCache();
  return async (c) => {
    const path = new URL(c.req.url).pathname;
    if (HOST_PATHS.test(path)) return c.notFound();
    for (const [name, value] of Object.entries(APP_SECURITY_HEADERS)) c.header(name, value);
    const segments = pathSegments(c.env.incoming.url ?? '/');
    if (segments === null) {
      return c.text('bad path\n', 400);
    }
    const index = await locate(appDir, ['index.html']);
    if (index === undefined) {
      c.header('Cache-Control', 'no-store');
      return c.text('The Tether app is not built: run `npm run build`.\n', 503);
    }
    if (segments.length === 0) return serveFile(c, load, index, 'index.html');
    const file = await locate(appDir, segments);
    if (file !== undefined) return serveFile(c, load, file, segments.join('/'));
    const wantsPage = (c.req.header('accept') ?? '').includes('text/html');
    if (!wantsPage || segments[0] === 'assets') return c.notFound();
    return serveFile(c, load, index, 'index.html');
  };
}
