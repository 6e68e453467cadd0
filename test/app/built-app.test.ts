/**
 * The built app in dist/app (made by `npm run build`, which `pretest` runs), as a phone
 * installs it: a manifest that makes it a standalone app with its icons, an index.html the
 * host's strict CSP lets run (no inline script) that loads nothing from another origin,
 * and a service worker that precaches the shell so it opens offline.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const APP_DIR = new URL('../../dist/app/', import.meta.url).pathname;

/** A file of the built app; fails naming the build when it is missing. */
function built(path: string): Buffer {
  const file = join(APP_DIR, path);
  if (!existsSync(file)) throw new Error(`no ${file}: run \`npm run build\` first`);
  return readFileSync(file);
}

/** The file an app URL (`/icons/icon-192.png`, `assets/x.js`) names in dist/app. */
function fileOf(url: string): string {
  return join(APP_DIR, decodeURIComponent(url.replace(/^\//, '').replace(/[?#].*$/, '')));
}

/** A URL served by the app's own origin: a path, not `scheme:` or `//host`. */
function isSameOriginPath(url: string): boolean {
  return url !== '' && !url.startsWith('//') && !/^[a-z][a-z0-9+.-]*:/i.test(url);
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const Manifest = z.object({
  name: z.string().min(1),
  display: z.string(),
  start_url: z.string().min(1),
  icons: z.array(z.object({ src: z.string(), sizes: z.string(), purpose: z.string().optional() })),
});

/** Every `<tag ...>` of `html` with its attributes (names lowercased). */
function tags(html: string): { name: string; attributes: Map<string, string> }[] {
  return [...html.matchAll(/<([a-z][a-z0-9-]*)\b([^>]*)>/gi)].map((match) => {
    const attributes = new Map<string, string>();
    for (const attribute of match[2]!.matchAll(
      /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g,
    )) {
      attributes.set(
        attribute[1]!.toLowerCase(),
        attribute[2] ?? attribute[3] ?? attribute[4] ?? '',
      );
    }
    return { name: match[1]!.toLowerCase(), attributes };
  });
}

describe('the built app (dist/app)', () => {
  it('has a manifest for a standalone app with 192 and 512 px icons that exist', () => {
    const parsed = Manifest.safeParse(JSON.parse(built('manifest.webmanifest').toString('utf8')));
    expect(parsed.error).toBeUndefined();
    const manifest = parsed.data!;
    expect(manifest.display).toBe('standalone');
    expect(manifest.name).toBe('Tether');
    expect(isSameOriginPath(manifest.start_url), manifest.start_url).toBe(true);
    for (const size of [192, 512]) {
      const icon = manifest.icons.find(
        (entry) =>
          entry.sizes.split(/\s+/).includes(`${size}x${size}`) &&
          (entry.purpose ?? 'any').split(/\s+/).includes('any'),
      );
      expect(icon, `an icon of ${size}x${size} for any purpose`).toBeDefined();
      expect(isSameOriginPath(icon!.src), icon!.src).toBe(true);
      expect(existsSync(fileOf(icon!.src)), `${icon!.src} in dist/app`).toBe(true);
      expect(pngSize(readFileSync(fileOf(icon!.src)))).toEqual({ width: size, height: size });
    }
  });

  it('has an index.html with no inline script and nothing from another origin', () => {
    const html = built('index.html').toString('utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [whole, , body] of scripts) {
      expect(body!.trim(), `inline code in ${whole}`).toBe('');
    }
    const all = tags(html);
    const scriptTags = all.filter((tag) => tag.name === 'script');
    expect(scriptTags).toHaveLength(scripts.length);
    for (const { attributes } of scriptTags) {
      const src = attributes.get('src');
      expect(src, 'a <script> without src').toBeDefined();
      expect(isSameOriginPath(src!), src).toBe(true);
      expect(existsSync(fileOf(src!)), `${src} in dist/app`).toBe(true);
    }
    const urls = all.flatMap(({ attributes }) =>
      ['src', 'href'].flatMap((name) => attributes.get(name) ?? []),
    );
    expect(urls.length).toBeGreaterThan(scriptTags.length);
    expect(urls.filter((url) => !isSameOriginPath(url))).toEqual([]);
    // Inline event handlers are inline script too: the CSP would refuse them.
    const handlers = all.flatMap(({ attributes }) =>
      [...attributes.keys()].filter((name) => name.startsWith('on')),
    );
    expect(handlers).toEqual([]);
  });

  it('has a service worker that precaches index.html and the scripts it loads, and handles pushes and their clicks', () => {
    const worker = built('sw.js').toString('utf8');
    // src/sw.ts's self.__WB_MANIFEST, replaced by the build's list (injectManifest).
    const precache = /\[\{"revision":[\s\S]*?"url":"[^"]*"\}\]/.exec(worker)?.[0];
    expect(precache, 'the injected precache manifest in sw.js').toBeDefined();
    const urls = z
      .array(z.object({ revision: z.string().nullable(), url: z.string() }))
      .parse(JSON.parse(precache!))
      .map((entry) => entry.url);
    expect(worker).not.toContain('__WB_MANIFEST');
    expect(worker).toMatch(/addEventListener\(["'`]push["'`]/);
    expect(worker).toMatch(/addEventListener\(["'`]notificationclick["'`]/);
    expect(urls).toContain('index.html');
    for (const url of urls) expect(existsSync(fileOf(url)), `${url} in dist/app`).toBe(true);
    const html = built('index.html').toString('utf8');
    const loaded = tags(html)
      .filter((tag) => tag.name === 'script' || tag.attributes.get('rel') === 'stylesheet')
      .map((tag) =>
        (tag.attributes.get('src') ?? tag.attributes.get('href') ?? '').replace(/^\//, ''),
      );
    expect(loaded.length).toBeGreaterThan(0);
    for (const url of loaded) expect(urls, `${url} precached`).toContain(url);
  });
});
