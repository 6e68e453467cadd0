/**
 * WebKit, the engine of Safari on iPhone and iPad, as Debian ships it: WebKitGTK's
 * MiniBrowser driven by WebKitWebDriver (`webkit2gtk-driver`) over plain W3C WebDriver
 * HTTP, on its own Xvfb display. One driver and display per test file; each session is a
 * fresh MiniBrowser, so a fresh device: it starts with empty storage, which lasts across
 * reloads for the session's life. Everything started here is stopped by `close()`, and
 * killed when the test process exits if a test never got there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../../protocol/index.js';
import { tempDir } from '../../support/temp-dir.js';
import { until } from '../../support/wait.js';
import { SCREENSHOTS_DIR } from './chromium.js';

/** WebKitWebDriver from `webkit2gtk-driver`; `TETHER_WEBKIT_DRIVER` overrides it. */
const DRIVER_PATH = process.env['TETHER_WEBKIT_DRIVER'] ?? '/usr/bin/WebKitWebDriver';
const XVFB_PATH = '/usr/bin/Xvfb';
const INSTALL =
  'apt-get install -y --no-install-recommends webkit2gtk-driver xvfb, as .ci/run does';

/**
 * The MiniBrowser that `libwebkit2gtk-4.1-0` (or 4.0) installs under the multiarch lib
 * folder; `TETHER_MINIBROWSER` overrides it.
 */
export function miniBrowserPath(): string | undefined {
  const set = process.env['TETHER_MINIBROWSER'];
  if (set !== undefined) return existsSync(set) ? set : undefined;
  for (const lib of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']) {
    if (!existsSync(lib)) continue;
    const found = readdirSync(lib)
      .filter((name) => /^webkit2?gtk-\d/.test(name))
      .sort()
      .reverse()
      .map((name) => join(lib, name, 'MiniBrowser'))
      .find((path) => existsSync(path));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * How long one awaited condition in a WebKit page may take. MiniBrowser paints in software
 * on Xvfb and each poll is a WebDriver round trip: alone a step takes a second or two, but
 * beside a Chromium file and a host on a busy 2-core machine (the full suite) it took
 * several times that, past Chromium's 20 s (chromium.ts).
 */
export const WEBKIT_STEP_MS = 45_000;

/**
 * How long a wait that includes starting a MiniBrowser may take: its UI, web and network
 * processes took 10–12 s to load a page on the 2-core machine under load.
 */
export const WEBKIT_START_MS = 60_000;

/** The WebDriver reference of an element (W3C's fixed key). */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

const Answer = z.object({ value: z.unknown() });
const Failure = z.object({
  value: z.object({ error: z.string(), message: z.string().optional() }),
});
const NewSession = z.object({ value: z.object({ sessionId: z.string() }) });
const ElementRef = z.object({ [ELEMENT_KEY]: z.string() });
const Rect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

/** A box on the page in CSS pixels, as `getBoundingClientRect` gives it. */
export type Box = z.infer<typeof Rect>;

/** A MiniBrowser window and the console lines it printed. */
export interface ConsoleWindow {
  /** What WebKit's console printed so far (`CONSOLE SECURITY ERROR …`, …). */
  output(): string;
  close(): Promise<void>;
}

/** A running WebKitWebDriver on its own display. */
export interface WebKit {
  /** The X display (`:N`) MiniBrowser windows open on. */
  readonly display: string;
  /** A fresh MiniBrowser: a new device with empty storage. */
  newPage(): Promise<WebKitPage>;
  /**
   * Opens `url` in a MiniBrowser outside WebDriver, with WebKit's console written to its
   * stdout (an automation session does not write it): what WebKit reports about a page,
   * e.g. a CSP directive or a viewport key it does not know.
   */
  openWithConsole(url: string): ConsoleWindow;
  /** Ends every session, the driver and the display. */
  close(): Promise<void>;
}

/**
 * Starts Xvfb on a free display and WebKitWebDriver on a free loopback port. A missing
 * package fails with what to install: the WebKit tests never skip themselves.
 */
export async function launchWebKit(): Promise<WebKit> {
  const miniBrowser = miniBrowserPath();
  const missing = [
    existsSync(DRIVER_PATH) ? undefined : `WebKitWebDriver (${DRIVER_PATH})`,
    miniBrowser === undefined ? 'MiniBrowser (libwebkit2gtk)' : undefined,
    existsSync(XVFB_PATH) ? undefined : `Xvfb (${XVFB_PATH})`,
  ].filter((name) => name !== undefined);
  if (missing.length > 0 || miniBrowser === undefined) {
    throw new Error(
      `WebKit is not installed: ${missing.join(', ')} missing. The WebKit tests need ` +
        `Debian's webkit2gtk-driver and xvfb (${INSTALL}), or TETHER_WEBKIT_DRIVER and ` +
        'TETHER_MINIBROWSER naming them',
    );
  }
  const children: ChildProcess[] = [];
  const stopAll = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', stopAll);
  try {
    const xvfb = await startXvfb(children);
    const port = await freePort();
    const driver = spawn(DRIVER_PATH, [`--port=${port}`, '--host=local'], {
      env: { ...process.env, DISPLAY: xvfb },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(driver);
    let driverOutput = '';
    const collect = (chunk: Buffer) =>
      (driverOutput = (driverOutput + chunk.toString()).slice(-4000));
    driver.stdout.on('data', collect);
    driver.stderr.on('data', collect);
    const base = `http://127.0.0.1:${port}`;
    await until(
      `WebKitWebDriver to listen on ${base}`,
      async () => {
        if (driver.exitCode !== null) {
          throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${driverOutput}`);
        }
        return fetch(`${base}/status`).then(
          (response) => (response.ok ? true : undefined),
          () => undefined,
        );
      },
      { timeout: WEBKIT_START_MS, interval: 50 },
    );
    const pages = new Set<WebKitPage>();
    return {
      display: xvfb,
      async newPage() {
        const page = await openSession(base, miniBrowser);
        pages.add(page);
        const close = page.close.bind(page);
        page.close = async () => {
          pages.delete(page);
          await close();
        };
        return page;
      },
      openWithConsole(url) {
        const profile = tempDir('tether-webkit-');
        // In its own process group: stopping it stops its web and network processes too.
        const browser = spawn(
          miniBrowser,
          ['--enable-write-console-messages-to-stdout=true', url],
          {
            detached: true,
            env: {
              ...process.env,
              DISPLAY: xvfb,
              // Its own cache and storage, thrown away with the window.
              XDG_CACHE_HOME: join(profile.path, 'cache'),
              XDG_DATA_HOME: join(profile.path, 'data'),
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        children.push(browser);
        let printed = '';
        const collect = (chunk: Buffer) => (printed += chunk.toString());
        browser.stdout.on('data', collect);
        browser.stderr.on('data', collect);
        return {
          output: () => printed,
          async close() {
            await stopChildren([browser]);
            if (browser.pid !== undefined) killGroup(browser.pid);
            rmSync(profile.path, { recursive: true, force: true, maxRetries: 10 });
          },
        };
      },
      async close() {
        for (const page of [...pages]) await page.close().catch(() => undefined);
        await stopChildren(children);
        process.off('exit', stopAll);
      },
    };
  } catch (error) {
    await stopChildren(children);
    process.off('exit', stopAll);
    throw error;
  }
}

/** Xvfb on the first free display it finds (`-displayfd`), resolving with `:N`. */
async function startXvfb(children: ChildProcess[]): Promise<string> {
  const xvfb = spawn(
    XVFB_PATH,
    ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  children.push(xvfb);
  let errors = '';
  xvfb.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
  const displayFd = xvfb.stdio[3];
  if (displayFd === null || displayFd === undefined || !('on' in displayFd)) {
    throw new Error('Xvfb gave no display pipe');
  }
  let written = '';
  displayFd.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const number = await until(
    'Xvfb to name its display',
    () => {
      if (xvfb.exitCode !== null) throw new Error(`Xvfb exited (${xvfb.exitCode}): ${errors}`);
      return /^\d+\n/.test(written) ? written.trim() : undefined;
    },
    { timeout: WEBKIT_START_MS, interval: 25 },
  );
  return `:${number}`;
}

async function stopChildren(children: ChildProcess[]): Promise<void> {
  // The driver first (it ends its MiniBrowsers), then the display.
  for (const child of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function openSession(base: string, miniBrowser: string): Promise<WebKitPage> {
  const answer = await command(base, 'POST', '/session', {
    capabilities: {
      alwaysMatch: {
        'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] },
      },
    },
  });
  const { sessionId } = NewSession.shape.value.parse(answer);
  return new WebKitPage(`${base}/session/${sessionId}`);
}

/** One WebDriver command; a WebDriver error becomes a thrown Error with its message. */
async function command(
  base: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  const json: unknown = await response.json();
  if (!response.ok) {
    const failure = Failure.safeParse(json);
    const detail = failure.success
      ? `${failure.data.value.error}: ${failure.data.value.message ?? ''}`
      : JSON.stringify(json);
    throw new Error(`WebDriver ${method} ${path} failed (${response.status}) ${detail}`);
  }
  return Answer.parse(json).value;
}

/** One MiniBrowser window through its WebDriver session. */
export class WebKitPage {
  constructor(private readonly session: string) {}

  private send(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
    return command(this.session, method, path, body);
  }

  async goto(url: string): Promise<void> {
    await this.send('POST', '/url', { url });
  }

  async reload(): Promise<void> {
    await this.send('POST', '/refresh', {});
  }

  async url(): Promise<string> {
    return z.string().parse(await this.send('GET', '/url'));
  }

  /**
   * Runs `body` (a function body; `arguments` holds `args`) in the page and returns what
   * it returns, awaited when it is a promise.
   */
  async evaluate(body: string, ...args: unknown[]): Promise<unknown> {
    return this.send('POST', '/execute/sync', {
      script: `return (async function () { ${body} }).apply(null, arguments);`,
      args,
    });
  }

  /** Waits until `body` (as in {@link evaluate}) returns something truthy; resolves with it. */
  async waitFor(what: string, body: string, ...args: unknown[]): Promise<unknown> {
    return until(
      `${what} in WebKit`,
      async () => {
        const value = await this.evaluate(body, ...args);
        return value === null || value === false || value === '' || value === 0 ? undefined : value;
      },
      { timeout: WEBKIT_STEP_MS, interval: 50 },
    );
  }

  /** Waits until an element matching `css` is shown (has a box and is not hidden). */
  async waitVisible(css: string): Promise<void> {
    try {
      await this.waitFor(
        `${css} to be visible`,
        `const element = document.querySelector(arguments[0]);
         if (element === null) return false;
         const box = element.getBoundingClientRect();
         return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';`,
        css,
      );
    } catch (error) {
      // What the page showed instead: a CI run leaves nothing else to read.
      const shown = await this.shown().catch((cause: unknown) => `(unreadable: ${String(cause)})`);
      throw new Error(`${errorMessage(error)}; the page showed ${shown}`, { cause: error });
    }
  }

  /** The page's address, its test ids and the start of its text: what a failure reports. */
  private async shown(): Promise<string> {
    return z.string().parse(
      await this.evaluate(
        `const ids = [...document.querySelectorAll('[data-testid]')].map((element) => element.dataset.testid);
         const text = (document.body?.innerText ?? '').replace(/\\s+/g, ' ').slice(0, 400);
         const fields = [...document.querySelectorAll('input, textarea, button')]
           .filter((field) => field.dataset.testid !== undefined && (field.value || field.disabled))
           .map((field) => field.dataset.testid + (field.disabled ? ' (disabled)' : '') + (field.value ? '=' + JSON.stringify(field.value.slice(0, 60)) : ''));
         return location.href + ' ids [' + ids.join(' ') + '] fields [' + fields.join(', ') + '] text "' + text + '"';`,
      ),
    );
  }

  private async element(css: string): Promise<string> {
    await this.waitVisible(css);
    const found = await this.send('POST', '/element', { using: 'css selector', value: css });
    return ElementRef.parse(found)[ELEMENT_KEY];
  }

  /**
   * Clicks the element as a user would: scrolled to the middle of the screen (as a thumb
   * brings it there), then pressed through WebDriver, which fails if another element
   * would get the press.
   */
  async click(css: string): Promise<void> {
    const id = await this.element(css);
    // WebDriver presses a disabled control without a word, and nothing happens: a page
    // still applying what was typed (a button enabled by the text's state) is waited for.
    await this.waitFor(
      `${css} to be enabled`,
      'return document.querySelector(arguments[0])?.disabled !== true;',
      css,
    );
    await this.evaluate(
      'document.querySelector(arguments[0]).scrollIntoView({ block: "center" });',
      css,
    );
    await this.send('POST', `/element/${id}/click`, {});
  }

  /** Clears a field and types `text` into it, key by key. */
  async type(css: string, text: string): Promise<void> {
    const id = await this.element(css);
    await this.send('POST', `/element/${id}/clear`, {});
    await this.send('POST', `/element/${id}/value`, { text });
  }

  /** The text content of the first element matching `css`, once it is visible. */
  async text(css: string): Promise<string> {
    await this.waitVisible(css);
    return z
      .string()
      .parse(await this.evaluate('return document.querySelector(arguments[0]).textContent;', css));
  }

  /** The element's box in CSS pixels, relative to the viewport. */
  async box(css: string): Promise<Box> {
    await this.waitVisible(css);
    return Rect.parse(
      await this.evaluate(
        `const box = document.querySelector(arguments[0]).getBoundingClientRect();
         return { x: box.x, y: box.y, width: box.width, height: box.height };`,
        css,
      ),
    );
  }

  /**
   * Sizes the window so that the page's viewport is `width`×`height` CSS pixels, or as
   * close as MiniBrowser's window allows (its toolbar keeps it from being narrower than
   * about 450 px); resolves with the viewport's size once it settled.
   */
  async setViewport(width: number, height: number): Promise<[number, number]> {
    const inner = async () =>
      z
        .tuple([z.number(), z.number()])
        .parse(await this.evaluate('return [innerWidth, innerHeight];'));
    // The command answers once the window has its new size (W3C WebDriver, Set Window Rect).
    const rect = Rect.parse(await this.send('POST', '/window/rect', { width, height }));
    const [shownWidth, shownHeight] = await inner();
    if (shownWidth === width && shownHeight === height) return [width, height];
    await this.send('POST', '/window/rect', {
      width: rect.width + width - shownWidth,
      height: rect.height + height - shownHeight,
    });
    return inner();
  }

  /** Saves a PNG of the viewport as test-results/screenshots/<name>.png; resolves with its path. */
  async screenshot(name: string): Promise<string> {
    const base64 = z.string().parse(await this.send('GET', '/screenshot'));
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    const path = join(SCREENSHOTS_DIR, `${name}.png`);
    writeFileSync(path, Buffer.from(base64, 'base64'));
    return path;
  }

  /** Ends the session, which closes its MiniBrowser. */
  async close(): Promise<void> {
    await this.send('DELETE', '');
  }
}
