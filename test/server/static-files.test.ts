/**
 * The PWA's files served by the host's HTTP app over a real socket: headers, cache rules,
 * content types, compression, HEAD, the SPA fallback, traversal refused, and the 503 when
 * the app is not built.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../host/server/testing.js';
import { createIdentity } from '../../pairing/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let rootDir: TempDir;
let root: string;
let appDir: string;
let server: ServerType;
let port: number;

const BIG_SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `word${i % 50}`))};\n`;

/** One raw request (the path is sent exactly as given, `..` and all). */
function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function startApp(dir: string): Promise<void> {
  const identity = createIdentity();
  const app = createHttpApp({
    hostId: identity.id,
    version: 'test',
    appDir: dir,
    admin: {
      // The admin routes are not exercised here; the runtime is never touched.
      runtime: undefined as never,
      identity,
      token: 'T'.repeat(43),
      port: () => port,
      defaultOrigin: () => `http://127.0.0.1:${port}`,
      closeDeviceSockets: () => undefined,
    },
  });
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  return new Promise((resolve) =>
    server.once('listening', () => {
      port = (server.address() as { port: number }).port;
      resolve();
    }),
  );
}

beforeAll(async () => {
  rootDir = tempDir('tether-static-', { realpath: false });
  root = rootDir.path;
  appDir = join(root, 'app');
  mkdirSync(join(appDir, 'assets'), { recursive: true });
  writeFileSync(join(appDir, 'index.html'), '<!doctype html><title>Tether</title>');
  writeFileSync(join(appDir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  writeFileSync(join(appDir, 'registerSW.js'), 'navigator.serviceWorker.register("/sw.js");');
  writeFileSync(join(appDir, 'manifest.webmanifest'), '{"name":"Tether"}');
  writeFileSync(join(appDir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(appDir, 'assets', 'index-abc123.js'), BIG_SCRIPT);
  writeFileSync(join(appDir, 'assets', 'index-abc123.css'), 'body{margin:0}');
  writeFileSync(join(root, 'secret.txt'), 'not for the web');
  symlinkSync(join(root, 'secret.txt'), join(appDir, 'leak.txt'));
  await startApp(appDir);
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rootDir.remove();
});

describe('the PWA files', () => {
  it('serves index.html at / with the CSP, nosniff, no-referrer and no-cache', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.body.toString()).toContain('<title>Tether</title>');
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('gives each file its content type and cache rule', async () => {
    const cases: [string, string, string][] = [
      ['/sw.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['/registerSW.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['/manifest.webmanifest', 'application/manifest+json', 'no-cache'],
      ['/icon.svg', 'image/svg+xml', 'no-cache'],
      [
        '/assets/index-abc123.js',
        'text/javascript; charset=utf-8',
        'public, max-age=31536000, immutable',
      ],
      [
        '/assets/index-abc123.css',
        'text/css; charset=utf-8',
        'public, max-age=31536000, immutable',
      ],
    ];
    for (const [path, type, cache] of cases) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers['content-type'], path).toBe(type);
      expect(response.headers['cache-control'], path).toBe(cache);
      expect(response.headers['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
  });

  it('compresses with brotli or gzip as asked, and sends the plain bytes otherwise', async () => {
    const br = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(BIG_SCRIPT);
    expect(br.body.length).toBeLessThan(BIG_SCRIPT.length / 4);
    expect(br.headers['vary']).toBe('Accept-Encoding');
    const gzip = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(BIG_SCRIPT);
    const plain = await get('/assets/index-abc123.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(BIG_SCRIPT);
    expect(Number(plain.headers['content-length'])).toBe(BIG_SCRIPT.length);
  });

  it('answers HEAD with the headers and no body, and 304 for a matching ETag', async () => {
    const head = await get('/assets/index-abc123.js', { 'accept-encoding': 'identity' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(BIG_SCRIPT.length);
    const etag = String(head.headers['etag']);
    const again = await get('/assets/index-abc123.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('falls back to index.html for app routes that accept HTML, never for host paths', async () => {
    const page = await get('/runs/run_123', { accept: 'text/html,application/xhtml+xml' });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('<title>Tether</title>');
    expect((await get('/runs/run_123', { accept: 'application/json' })).status).toBe(404);
    expect((await get('/assets/missing.js', { accept: 'text/html' })).status).toBe(404);
    for (const path of ['/v1/nope', '/admin/nope', '/ca.pem', '/ca.mobileconfig']) {
      const response = await get(path, { accept: 'text/html' });
      expect(response.status, path).toBe(404);
      expect(response.body.toString(), path).not.toContain('<title>Tether</title>');
    }
  });

  it('refuses traversal, plain or encoded, and files that resolve outside the folder', async () => {
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2E%2E/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00index.html',
    ]) {
      const response = await get(path, { accept: 'text/html' });
      expect(response.status, path).toBe(400);
      expect(response.body.toString(), path).not.toContain('not for the web');
    }
    const link = await get('/leak.txt');
    expect(link.status).toBe(404);
    expect(link.body.toString()).not.toContain('not for the web');
  });
});

describe('an app that is not built', () => {
  it('answers / with 503 and says to run npm run build', async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await startApp(join(root, 'missing'));
    const response = await get('/');
    expect(response.status).toBe(503);
    expect(response.body.toString()).toBe('The Tether app is not built: run `npm run build`.\n');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect((await get('/v1/health')).status).toBe(200);
  });
});
