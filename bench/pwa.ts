/**
 * The PWA (dist/app) in headless Chromium against a real host in this process:
 * - gzipped JS and CSS of the built app, against the 80 KB budget for the page's JS;
 * - navigation to the runs list painted with 200 runs (median of 5 loads);
 * - opening a run of ~5,000 events (median of 5 loads);
 * - animation frames over 50 ms while previews arrive at 30 a second for 10 s.
 * The host's store is filled by real runs of a local streaming model, so what the page
 * reads is what a host writes.
 *
 *   npm run bench:pwa    (builds first; needs dist/app and Debian's chromium)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { z } from 'zod';
import { startBenchHost } from './channel-host.js';

const APP_DIR = new URL('../app/', import.meta.url).pathname;
const CHROMIUM = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';
const JS_BUDGET_BYTES = 80 * 1024;
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

/**
 * Prints gzipped sizes. The budget covers the JS a first load fetches: the scripts and
 * module preloads index.html names. Chunks loaded on demand (the QR decoder) and the
 * service worker are listed apart.
 */
function printSizes(): void {
  const files = filesOf(APP_DIR);
  const gzipped = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;
  const html = readFileSync(join(APP_DIR, 'index.html'), 'utf8');
  const named = new Set(
    [...html.matchAll(/(?:src|href)="\/?([^"]+\.js)"/g)].map((match) => join(APP_DIR, match[1]!)),
  );
  const js = files.filter((path) => path.endsWith('.js'));
  const worker = js.filter((path) => /(^|\/)(sw|workbox-[^/]*|registerSW)\.js$/.test(path));
  const initial = js.filter((path) => named.has(path));
  const lazy = js.filter((path) => !named.has(path) && !worker.includes(path));
  const css = files.filter((path) => path.endsWith('.css'));
  const sum = (paths: string[]) => paths.reduce((total, path) => total + gzipped(path), 0);
  console.log('sizes (gzip -9)');
  for (const path of [...initial, ...lazy, ...css]) {
    const note = initial.includes(path) ? 'first load' : lazy.includes(path) ? 'on demand' : '';
    console.log(
      `  ${relative(APP_DIR, path).padEnd(36)} ${kb(gzipped(path)).padStart(9)}  ${note}`,
    );
  }
  const firstLoad = sum(initial);
  const verdict = firstLoad <= JS_BUDGET_BYTES ? 'under' : 'OVER';
  console.log(
    `  JS on first load  ${kb(firstLoad)} (${verdict} the ${kb(JS_BUDGET_BYTES)} budget)`,
  );
  console.log(`  JS on demand      ${kb(sum(lazy))}`);
  console.log(`  CSS               ${kb(sum(css))}`);
  console.log(`  service worker    ${kb(sum(worker))} (with Workbox; not in the budget)`);
}

/** What the bench model answers to the next chat request. */
type Turn = 'tools' | 'text' | 'slow';

/** A local OpenAI-compatible streaming model that answers from a plan of turns. */
async function startPlannedModel(plan: Turn[]) {
  let calls = 0;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const answer = async (res: ServerResponse, turn: Turn) => {
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
    const pieces = turn === 'slow' ? PREVIEW_CHUNKS : 1;
    for (let i = 0; i < pieces; i++) {
      if (turn === 'slow') await new Promise((resolve) => setTimeout(resolve, 1000 / 30));
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

const Health = z.looseObject({ hostId: z.string() });

async function main(): Promise<void> {
  if (!existsSync(join(APP_DIR, 'index.html')))
    throw new Error(`no built app in ${APP_DIR}: run npm run build`);
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  printSizes();

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
    await page.goto(await bench.pairLink());
    await page.locator('[data-testid="pair-sas"]').waitFor();
    await page.locator('[data-testid="pair-done"]').click();
    await page.locator('[data-testid="runs-screen"]').waitFor();

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

    model.plan.push(...Array<Turn>(BIG_TURNS).fill('tools'), 'text');
    seeded = performance.now();
    const bigRun = await submit('Many tool calls');
    const { events } = z
      .object({ events: z.number() })
      .parse(
        runtime.store.db
          .prepare('SELECT COUNT(*) AS events FROM events WHERE run_id = ?')
          .get(bigRun),
      );
    const calls = runtime.getRun(bigRun).toolCalls.length;
    console.log(
      `\nbig run: ${calls} tool calls, ${events} events, made in ${ms(performance.now() - seeded)}`,
    );
    await page.goto(`${bench.host.url}/#/run/${hostId}/${bigRun}`);
    await page.locator('[data-testid="run-screen"]').waitFor();
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
    await page.locator('[data-testid="assistant-message"][data-streaming="true"]').waitFor();
    const smooth = await page.evaluate(async (seconds) => {
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
    await runtime.whenIdle();
    console.log(
      `\npreviews at 30/s for ${PREVIEW_SECONDS} s: ${smooth.frames} frames, ${smooth.slow} over 50 ms (worst ${ms(smooth.worst)}), ${smooth.longTasks} long tasks`,
    );
    await context.close();
  } finally {
    await browser.close();
    await bench.stop();
    await model.close();
  }
}

await main();
