/**
 * The PWA (dist/app) in headless Chromium against a real host in this process:
 * - gzipped JS and CSS of the built app, and the JS the page's first load really fetched
 *   (its responses, as Chromium requested them) against the first-load budget
 *   (remote/app/scripts/first-load-budget.ts; the bench exits 1 past it);
 * - navigation to the runs list painted with 200 runs (median of 5 loads);
 * - opening a run of ~5,000 events (median of 5 loads);
 * - animation frames over 50 ms while previews arrive at 30 a second for 10 s, into a
 *   fresh one-message run and into the ~5,000-event run while it is on screen.
 * The host's store is filled by real runs of a local streaming model, so what the page
 * reads is what a host writes.
 *
 *   npm run bench:pwa    (builds first; needs dist/app and Debian's chromium)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { chromium, type Page, type Response } from 'playwright-core';
import { z } from 'zod';
import {
  FIRST_LOAD_BUDGET_BYTES,
  firstLoadVerdict,
  gzipBytes,
} from '../remote/app/scripts/first-load-budget.js';
import { startBenchHost } from './channel-host.js';

const APP_DIR = new URL('../app/', import.meta.url).pathname;
const CHROMIUM = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';
const LIST_RUNS = 200;
const LOADS = 5;
/** Tool-call turns of the big run and calls in each: 49 × (34 × 3 + 2) ≈ 5,000 events. */
const BIG_TURNS = 49;
const CALLS_PER_TURN = 34;
const PREVIEW_SECONDS = 10;
const PREVIEW_CHUNKS = PREVIEW_SECONDS * 30;
const WAIT_MS = 60_000;
/** How long the first load may take to list all 200 runs before the bench times fewer. */
const WARM_WAIT_MS = 15_000;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Every file under `dir`. */
function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path) : [path];
  });
}

/** One response of the page's first load: its path, type, body and bytes on the wire. */
interface Fetched {
  path: string;
  type: string;
  body: Buffer;
  /** The encoded body as transferred (the host compresses). */
  wireBytes: number;
  encoding: string;
}

/**
 * Records every same-origin response `page` receives until the returned function is
 * called, which resolves with them once their bodies are in.
 */
function recordResponses(page: Page, origin: string): () => Promise<Fetched[]> {
  const pending: Promise<Fetched | undefined>[] = [];
  const onResponse = (response: Response) => {
    const url = new URL(response.url());
    if (url.origin !== origin || response.status() !== 200) return;
    const request = response.request();
    pending.push(
      response.body().then(
        async (body) => ({
          path: url.pathname,
          type: request.resourceType(),
          body,
          wireBytes: (await request.sizes()).responseBodySize,
          encoding: (await response.headerValue('content-encoding')) ?? 'identity',
        }),
        () => undefined,
      ),
    );
  };
  page.on('response', onResponse);
  return async () => {
    page.off('response', onResponse);
    return (await Promise.all(pending)).filter((entry) => entry !== undefined);
  };
}

/**
 * Prints gzipped sizes. The budget covers the JS the page's first load fetched (every
 * script response, whatever imported it); the app's other chunks (the QR decoder) are
 * "on demand"; the service worker, which fetches its own scripts, is listed apart.
 */
function printSizes(firstLoad: readonly Fetched[]): void {
  const fetchedJs = firstLoad.filter((entry) => entry.type === 'script');
  const fetchedPaths = new Set(fetchedJs.map((entry) => join(APP_DIR, entry.path)));
  const files = filesOf(APP_DIR);
  const js = files.filter((path) => path.endsWith('.js'));
  // The worker's own files sit at the root (the page's workbox-window chunk is in assets/).
  const worker = js.filter((path) => /^(sw|workbox-[^/]*)\.js$/.test(relative(APP_DIR, path)));
  const lazy = js.filter((path) => !fetchedPaths.has(path) && !worker.includes(path));
  const css = files.filter((path) => path.endsWith('.css'));
  const sum = (paths: string[]) =>
    paths.reduce((total, path) => total + gzipBytes(readFileSync(path)), 0);
  console.log('sizes (gzip -9; on the wire as the host served them to Chromium)');
  for (const entry of fetchedJs) {
    const wire = `${kb(entry.wireBytes)} ${entry.encoding}`;
    console.log(
      `  ${entry.path.slice(1).padEnd(44)} ${kb(gzipBytes(entry.body)).padStart(9)}  first load (${wire})`,
    );
  }
  for (const path of [...lazy, ...css]) {
    const note = lazy.includes(path) ? 'on demand' : '';
    console.log(
      `  ${relative(APP_DIR, path).padEnd(44)} ${kb(gzipBytes(readFileSync(path))).padStart(9)}  ${note}`,
    );
  }
  const verdict = firstLoadVerdict(
    fetchedJs.map((entry) => ({ name: entry.path.slice(1), gzipBytes: gzipBytes(entry.body) })),
  );
  const firstWire = fetchedJs.reduce((total, entry) => total + entry.wireBytes, 0);
  const allWire = firstLoad.reduce((total, entry) => total + entry.wireBytes, 0);
  console.log(
    `  JS on first load  ${kb(verdict.totalBytes)} in ${fetchedJs.length} scripts (${verdict.over ? 'OVER' : 'under'} the ${kb(FIRST_LOAD_BUDGET_BYTES)} budget; ${kb(firstWire)} on the wire)`,
  );
  if (verdict.over) {
    console.log(`  OVER BUDGET: ${verdict.message}`);
    process.exitCode = 1;
  }
  const types = [...new Set(firstLoad.map((entry) => entry.type))].join(', ');
  console.log(
    `  first load total  ${kb(allWire)} on the wire in ${firstLoad.length} responses (${types})`,
  );
  console.log(`  JS on demand      ${kb(sum(lazy))}`);
  console.log(`  CSS               ${kb(sum(css))}`);
  console.log(`  service worker    ${kb(sum(worker))} (with Workbox; not in the budget)`);
}

/**
 * What the bench model answers to the next chat request: `slow` streams for
 * PREVIEW_SECONDS; `held` does too, once `release()` is called.
 */
type Turn = 'tools' | 'text' | 'slow' | 'held';

/** A local OpenAI-compatible streaming model that answers from a plan of turns. */
async function startPlannedModel(plan: Turn[]) {
  let calls = 0;
  let arrived = () => {};
  let release = () => {};
  const held = new Promise<void>((resolve) => (arrived = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const answer = async (res: ServerResponse, turn: Turn) => {
    if (turn === 'held') {
      arrived();
      await released;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }));
    if (turn === 'tools') {
      const toolCalls = Array.from({ length: CALLS_PER_TURN }, (_, index) => ({
        index,
        id: `call_${++calls}`,
        type: 'function',
        function: { name: 'list_directory', arguments: '{"path":"."}' },
      }));
      res.write(chunk({ content: `Listing ${CALLS_PER_TURN} times.` }));
      res.write(chunk({ tool_calls: toolCalls }));
      res.end(chunk({}, 'tool_calls') + 'data: [DONE]\n\n');
      return;
    }
    const slow = turn === 'slow' || turn === 'held';
    const pieces = slow ? PREVIEW_CHUNKS : 1;
    for (let i = 0; i < pieces; i++) {
      if (slow) await new Promise((resolve) => setTimeout(resolve, 1000 / 30));
      res.write(chunk({ content: `piece ${i}, with **some** markdown and \`code\`. ` }));
    }
    res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => void answer(res, plan.shift() ?? 'text'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    plan,
    /** Resolves once a `held` turn was asked for. */
    held,
    release,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * In every document: each animation frame checks `localStorage['bench.selector']` (shown
 * at least `bench.count` times) and records in `window.benchDone` the time of the first frame that shows it.
 */
function installFrameProbe(): void {
  const probe = window as unknown as { benchDone?: number; benchFrames?: number[] };
  const frames: number[] = [];
  probe.benchFrames = frames;
  let last = 0;
  const tick = (now: number) => {
    if (last !== 0) frames.push(now - last);
    last = now;
    requestAnimationFrame(tick);
    const selector = localStorage.getItem('bench.selector');
    const count = Number(localStorage.getItem('bench.count') ?? '1');
    if (selector !== null && probe.benchDone === undefined) {
      if (document.querySelectorAll(selector).length >= count) probe.benchDone = now;
    }
  };
  requestAnimationFrame(tick);
}

/** Reloads `page` and resolves with ms from navigation to the frame showing `count` of `selector`. */
async function timeLoad(
  page: Page,
  selector: string,
  count: number,
  timeout = WAIT_MS,
): Promise<number> {
  await page.evaluate(
    ([wanted, times]) => {
      localStorage.setItem('bench.selector', wanted);
      localStorage.setItem('bench.count', String(times));
    },
    [selector, count] as const,
  );
  await page.reload();
  const handle = await page.waitForFunction(
    () => (window as unknown as { benchDone?: number }).benchDone,
    undefined,
    { timeout, polling: 100 },
  );
  return z.number().parse(await handle.jsonValue());
}

/**
 * Waits for `page` to show a streaming answer, then counts its animation frames for
 * PREVIEW_SECONDS (while the previews arrive) and the long tasks meanwhile.
 */
async function previewFrames(page: Page) {
  await page.locator('[data-testid="assistant-message"][data-streaming="true"]').waitFor();
  return page.evaluate(async (seconds) => {
    const probe = window as unknown as { benchFrames: number[] };
    const from = probe.benchFrames.length;
    let longTasks = 0;
    const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
    observer.observe({ type: 'longtask', buffered: false });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    observer.disconnect();
    const frames = probe.benchFrames.slice(from);
    return {
      frames: frames.length,
      slow: frames.filter((delta) => delta > 50).length,
      worst: Math.max(...frames),
      longTasks,
    };
  }, PREVIEW_SECONDS);
}

type Frames = Awaited<ReturnType<typeof previewFrames>>;

const framesLine = (what: string, frames: Frames) =>
  `previews at 30/s for ${PREVIEW_SECONDS} s, ${what}: ${frames.frames} frames, ${frames.slow} over 50 ms (worst ${ms(frames.worst)}), ${frames.longTasks} long tasks`;

const Health = z.looseObject({ hostId: z.string() });

async function main(): Promise<void> {
  if (!existsSync(join(APP_DIR, 'index.html')))
    throw new Error(`no built app in ${APP_DIR}: run npm run build`);
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);

  const model = await startPlannedModel([]);
  process.env['TETHER_MODEL_BASE_URL'] = model.baseUrl;
  process.env['TETHER_MODEL'] = 'bench';
  process.env['TETHER_MODEL_API_KEY'] = 'sk-bench';
  const bench = await startBenchHost();
  const { runtime } = bench.host;
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
    ],
  });
  try {
    const { hostId } = Health.parse(await (await fetch(`${bench.host.url}/v1/health`)).json());
    const submit = async (text: string) => {
      const commandId = `bench-pwa-${process.pid}-${text.replace(/\W+/g, '-')}`;
      const { runId } = runtime.submit({ commandId, input: { text } }, 'bench');
      await runtime.whenIdle();
      return runId;
    };
    let seeded = performance.now();
    for (let i = 1; i <= LIST_RUNS; i++) await submit(`Seeded run number ${i}`);
    console.log(`\nseeded ${LIST_RUNS} runs in ${ms(performance.now() - seeded)}`);

    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
    });
    context.setDefaultTimeout(WAIT_MS);
    await context.addInitScript(() => {
      try {
        localStorage.setItem('tether.deviceName', 'Bench iPhone');
      } catch {
        // about:blank has no localStorage.
      }
    });
    await context.addInitScript(installFrameProbe);
    const page = await context.newPage();
    // The first load: a new phone opens the pairing link, pairs, and lists the runs.
    const firstLoad = recordResponses(page, new URL(bench.host.url).origin);
    await page.goto(await bench.pairLink());
    await page.locator('[data-testid="pair-sas"]').waitFor();
    await page.locator('[data-testid="pair-done"]').click();
    await page.locator('[data-testid="runs-screen"]').waitFor();
    await page.waitForLoadState('networkidle');
    console.log('');
    printSizes(await firstLoad());

    const row = '[data-testid="run-row"]';
    // The list pages in older runs as its end comes near the viewport (50 in the snapshot,
    // then runs.list pages): a tall viewport lets all 200 load with no scrolling.
    await page.setViewportSize({ width: 390, height: 12_000 });
    // The first load warms the cache and finds how many rows the app lists at all.
    const listed = await timeLoad(page, row, LIST_RUNS, WARM_WAIT_MS).then(
      () => LIST_RUNS,
      () => page.locator(row).count(),
    );
    if (listed < LIST_RUNS) {
      console.log(`runs list: only ${listed} of the ${LIST_RUNS} runs are listed (timed to those)`);
    }
    const listTimes: number[] = [];
    for (let load = 0; load < LOADS; load++) listTimes.push(await timeLoad(page, row, listed));
    console.log(
      `runs list, ${listed} rows painted: median ${ms(median(listTimes))} from navigation (${listTimes.map(ms).join(', ')})`,
    );

    await page.setViewportSize({ width: 390, height: 844 });

    // The big run's last answer is held until the run is on screen, then streams previews
    // into a page that holds its ~5,000 events.
    model.plan.push(...Array<Turn>(BIG_TURNS).fill('tools'), 'held');
    seeded = performance.now();
    const { runId: bigRun } = runtime.submit(
      { commandId: `bench-pwa-${process.pid}-big`, input: { text: 'Many tool calls' } },
      'bench',
    );
    await model.held;
    const made = performance.now() - seeded;
    await page.evaluate(() => localStorage.removeItem('bench.selector'));
    await page.goto(`${bench.host.url}/#/run/${hostId}/${bigRun}`);
    // Shown once the run's own snapshot came: more steps than the screen shows at first.
    await page.locator('[data-testid="run-earlier"]').waitFor();
    // Events the page saw live may have drawn it first: let the snapshot land before timing.
    await page.waitForTimeout(1000);
    model.release();
    const bigFrames = await previewFrames(page);
    await runtime.whenIdle();
    const { events } = z
      .object({ events: z.number() })
      .parse(
        bench.store.db
          .prepare('SELECT COUNT(*) AS events FROM events WHERE run_id = ?')
          .get(bigRun),
      );
    const calls = runtime.getRun(bigRun).toolCalls.length;
    console.log(
      `\nbig run: ${calls} tool calls, ${events} events, made in ${ms(made)} (to its last answer)`,
    );
    const done = `[data-testid="run-screen"][data-run-id="${bigRun}"][data-session-idle="true"]`;
    const runTimes: number[] = [];
    for (let load = 0; load < LOADS; load++) runTimes.push(await timeLoad(page, done, 1));
    const cards = await page.locator('[data-testid="tool-card"]').count();
    console.log(
      `run of ${calls} tool calls: median ${ms(median(runTimes))} from navigation to painted (${runTimes.map(ms).join(', ')}); ${cards} tool cards in the DOM`,
    );

    model.plan.push('slow');
    const { runId: slowRun } = runtime.submit(
      { commandId: `bench-pwa-${process.pid}-slow`, input: { text: 'Talk for ten seconds' } },
      'bench',
    );
    await page.evaluate(() => localStorage.removeItem('bench.selector'));
    await page.goto(`${bench.host.url}/#/run/${hostId}/${slowRun}`);
    const freshFrames = await previewFrames(page);
    await runtime.whenIdle();
    console.log(`\n${framesLine('into a fresh one-message run', freshFrames)}`);
    console.log(framesLine(`into the run of ${calls} tool calls (${events} events)`, bigFrames));
    await context.close();
  } finally {
    await browser.close();
    await bench.stop();
    await model.close();
  }
}

await main();
