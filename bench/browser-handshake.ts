/**
 * The app's channel handshake in headless Chromium, with the CPU throttled ×4 (CDP
 * `Emulation.setCPUThrottlingRate`) as a stand-in for a phone, and unthrottled as the
 * baseline of the same run. A paired page reloads ROUNDS times; each load times, in the
 * page, its socket's `open` to the first encrypted frame it sends (the channel is open):
 * - client before hello: ephemeral X25519 key and the Ed25519 signature of hello;
 * - hello → welcome: the host's half and loopback;
 * - welcome → first frame: verifying the host's signature, X25519, the key schedule and
 *   sealing the first request.
 * Then the crypto the handshake runs, one operation at a time in the page (median of
 * OPS_ROUNDS): tweetnacl, which the app uses, against WebCrypto's Ed25519 and X25519
 * where the context has them, and whether a plain-HTTP LAN origin has WebCrypto at all.
 *
 *   npm run bench:handshake    (builds first; needs dist/app and Debian's chromium)
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { z } from 'zod';
import { startBenchHost } from './channel-host.js';

const APP_DIR = new URL('../app/', import.meta.url).pathname;
const CHROMIUM = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';
const ROUNDS = 15;
const OPS_ROUNDS = 40;
const THROTTLE = 4;
/** A name only this browser resolves (to loopback): a plain-HTTP origin that is not localhost. */
const LAN_HOST = 'tether-lan.test';
const NACL_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('tweetnacl/nacl-fast.min.js'),
  'utf8',
);

const ms = (value: number) => `${value.toFixed(1)} ms`;
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/**
 * In every document: wraps `WebSocket` to note, for each socket, when it opened, sent its
 * first text frame (hello), received its first message (welcome) and sent its first
 * binary frame (the channel is open), in `window.benchSockets`.
 */
function installSocketProbe(): void {
  interface Times {
    open?: number;
    hello?: number;
    welcome?: number;
    channel?: number;
  }
  const probe = window as unknown as { benchSockets?: Times[] };
  const sockets: Times[] = [];
  probe.benchSockets = sockets;
  const Native = window.WebSocket;
  class ProbedWebSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const times: Times = {};
      sockets.push(times);
      this.addEventListener('open', () => (times.open = performance.now()));
      this.addEventListener('message', () => (times.welcome ??= performance.now()));
      const send = this.send.bind(this);
      this.send = (data) => {
        if (typeof data === 'string') times.hello ??= performance.now();
        else times.channel ??= performance.now();
        send(data);
      };
    }
  }
  window.WebSocket = ProbedWebSocket;
}

const SocketTimes = z.object({
  open: z.number(),
  hello: z.number(),
  welcome: z.number(),
  channel: z.number(),
});
type SocketTimes = z.infer<typeof SocketTimes>;

/** Reloads `page` and resolves with the times of the first socket that opened a channel. */
async function timeHandshake(page: Page): Promise<SocketTimes> {
  await page.reload();
  const handle = await page.waitForFunction(
    () =>
      (window as unknown as { benchSockets?: { channel?: number }[] }).benchSockets?.find(
        (socket) => socket.channel !== undefined,
      ),
    undefined,
    { timeout: 30_000, polling: 20 },
  );
  return SocketTimes.parse(await handle.jsonValue());
}

async function handshakeRounds(page: Page, label: string): Promise<void> {
  const rounds: SocketTimes[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await timeHandshake(page));
  const part = (pick: (times: SocketTimes) => number) => median(rounds.map(pick));
  const total = rounds.map((times) => times.channel - times.open);
  console.log(
    `  ${label.padEnd(14)} open → channel median ${ms(median(total))} ` +
      `(min ${ms(Math.min(...total))}, max ${ms(Math.max(...total))}; ${ROUNDS} loads): ` +
      `before hello ${ms(part((t) => t.hello - t.open))}, ` +
      `hello → welcome ${ms(part((t) => t.welcome - t.hello))}, ` +
      `welcome → first frame ${ms(part((t) => t.channel - t.welcome))}`,
  );
}

const OpTimes = z.object({
  secure: z.boolean(),
  subtle: z.boolean(),
  nacl: z.record(z.string(), z.number()),
  webCrypto: z.union([z.record(z.string(), z.number()), z.string()]),
});

/** Times the handshake's crypto in `page`, one operation at a time: medians in ms. */
async function timeCrypto(page: Page) {
  await page.addScriptTag({ content: NACL_SOURCE });
  const times = await page.evaluate(async (rounds) => {
    interface Nacl {
      sign: {
        keyPair: () => { publicKey: Uint8Array; secretKey: Uint8Array };
        detached: ((message: Uint8Array, key: Uint8Array) => Uint8Array) & {
          verify: (message: Uint8Array, sig: Uint8Array, key: Uint8Array) => boolean;
        };
      };
      scalarMult: ((n: Uint8Array, p: Uint8Array) => Uint8Array) & {
        base: (n: Uint8Array) => Uint8Array;
      };
      randomBytes: (length: number) => Uint8Array;
    }
    const nacl = (window as unknown as { nacl: Nacl }).nacl;
    const middle = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
    async function time(run: () => unknown): Promise<number> {
      const spent: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const start = performance.now();
        await run();
        spent.push(performance.now() - start);
      }
      return middle(spent);
    }
    const message = new Uint8Array(200);
    crypto.getRandomValues(message);
    const signer = nacl.sign.keyPair();
    const signature = nacl.sign.detached(message, signer.secretKey);
    const secret = nacl.randomBytes(32);
    const peer = nacl.scalarMult.base(nacl.randomBytes(32));
    const naclTimes = {
      'Ed25519 sign': await time(() => nacl.sign.detached(message, signer.secretKey)),
      'Ed25519 verify': await time(() =>
        nacl.sign.detached.verify(message, signature, signer.publicKey),
      ),
      'X25519 key pair': await time(() => nacl.scalarMult.base(secret)),
      'X25519 shared': await time(() => nacl.scalarMult(secret, peer)),
    };
    const subtle = globalThis.crypto?.subtle;
    const result = { secure: isSecureContext, subtle: subtle !== undefined, nacl: naclTimes };
    if (subtle === undefined) return { ...result, webCrypto: 'no crypto.subtle here' };
    try {
      const ed = await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
      const edSig = await subtle.sign('Ed25519', ed.privateKey, message);
      const x = (await subtle.generateKey({ name: 'X25519' }, false, [
        'deriveBits',
      ])) as CryptoKeyPair;
      const other = (await subtle.generateKey({ name: 'X25519' }, false, [
        'deriveBits',
      ])) as CryptoKeyPair;
      return {
        ...result,
        webCrypto: {
          'Ed25519 sign': await time(() => subtle.sign('Ed25519', ed.privateKey, message)),
          'Ed25519 verify': await time(() =>
            subtle.verify('Ed25519', ed.publicKey, edSig, message),
          ),
          'X25519 key pair': await time(() =>
            subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']),
          ),
          'X25519 shared': await time(() =>
            subtle.deriveBits({ name: 'X25519', public: other.publicKey }, x.privateKey, 256),
          ),
        },
      };
    } catch (error) {
      return { ...result, webCrypto: `no Ed25519/X25519: ${String(error)}` };
    }
  }, OPS_ROUNDS);
  return OpTimes.parse(times);
}

function printCrypto(label: string, times: z.infer<typeof OpTimes>): void {
  console.log(
    `  ${label}: isSecureContext ${times.secure}, crypto.subtle ${times.subtle ? 'present' : 'absent'}`,
  );
  for (const [op, naclMs] of Object.entries(times.nacl)) {
    const web = typeof times.webCrypto === 'string' ? undefined : times.webCrypto[op];
    const versus =
      web === undefined ? '' : `, WebCrypto ${ms(web)} (${(naclMs / web).toFixed(1)}×)`;
    console.log(`    ${op.padEnd(16)} tweetnacl ${ms(naclMs)}${versus}`);
  }
  if (typeof times.webCrypto === 'string') console.log(`    WebCrypto: ${times.webCrypto}`);
}

async function main(): Promise<void> {
  if (!existsSync(join(APP_DIR, 'index.html')))
    throw new Error(`no built app in ${APP_DIR}: run npm run build`);
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);

  const bench = await startBenchHost();
  // A blank page on a plain-HTTP origin that is not loopback by name, as a LAN address is.
  const blank = createServer((_req, res) => res.end('<!doctype html><title>lan</title>'));
  await new Promise<void>((resolve) => blank.listen(0, '127.0.0.1', resolve));
  const blankPort = (blank.address() as AddressInfo).port;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`,
    ],
  });
  try {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
    });
    context.setDefaultTimeout(60_000);
    await context.addInitScript(installSocketProbe);
    const page = await context.newPage();
    await page.goto(await bench.pairLink());
    await page.locator('[data-testid="pair-sas"]').waitFor();
    await page.locator('[data-testid="pair-done"]').click();
    await page.locator('[data-testid="runs-screen"]').waitFor();
    // A first load warms the caches (compiled scripts, the service worker) before timing.
    await timeHandshake(page);

    const cdp = await context.newCDPSession(page);
    console.log(`\nchannel handshake of the app (${new URL(bench.host.url).origin})`);
    await handshakeRounds(page, 'unthrottled');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    await handshakeRounds(page, `CPU ×${THROTTLE}`);

    console.log(`\nthe handshake's crypto, one operation (median of ${OPS_ROUNDS})`);
    // On a blank page of each origin: the app's CSP admits no inline script.
    const blankPage = await context.newPage();
    await blankPage.goto(`http://127.0.0.1:${blankPort}/`);
    printCrypto('loopback origin (http://127.0.0.1), unthrottled', await timeCrypto(blankPage));
    // The throttle slows the page's main thread; WebCrypto works on another thread.
    const blankCdp = await context.newCDPSession(blankPage);
    await blankCdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    await blankPage.reload();
    printCrypto(`loopback origin, CPU ×${THROTTLE}`, await timeCrypto(blankPage));
    await blankPage.goto(`http://${LAN_HOST}:${blankPort}/`);
    printCrypto(
      `plain-HTTP LAN origin (http://${LAN_HOST}), CPU ×${THROTTLE}`,
      await timeCrypto(blankPage),
    );
    await context.close();
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => blank.close(() => resolve()));
    await bench.stop();
  }
}

await main();
