/**
 * A run of many steps opens with its newest ones: the run screen shows at most a window of
 * messages and tool cards, and `run-earlier` brings the earlier ones, in order, none doubled.
 * Browser test: needs `npm run build` (dist/app) and Chromium, as test/browser does.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pairDevice, submitTask, toolCardIds, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeToolCalls } from './support/store-reader.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';

/** 18 turns of 10 reads: more steps than the first window of 150 shows. */
const TURNS = 18;
const CALLS_PER_TURN = 10;

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  phone = await openDevice(browser, 'Long-run phone', { viewport: { width: 390, height: 844 } });
  await pairDevice(phone, app);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('a run of many steps', () => {
  it('shows its newest steps first and the earlier ones on demand, in the store’s order', async () => {
    for (let turn = 0; turn < TURNS; turn++) {
      const calls = Array.from({ length: CALLS_PER_TURN }, (_, i) => ({
        id: `call_${turn}_${i}`,
        name: 'list_directory',
        arguments: JSON.stringify({ path: '.' }),
      }));
      app.model.push(toolCallTurn(calls));
    }
    app.model.push(textTurn('Listed it many times.'));
    const scripts: string[] = [];
    phone.page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    const runId = await submitTask(phone.page, 'List the folder again and again');
    await visible(byTestId(phone.page, 'run-screen', { 'run-id': runId, state: 'succeeded' }));
    // Hundreds of events came in: the app fetched the quick event check (its first load
    // did not), and the cards below were checked by it.
    expect(scripts.some((path) => /\/accept-check-[\w-]+\.js$/.test(path))).toBe(true);

    const stored = storeToolCalls(app.dataDir, runId).map((call) => call.id);
    expect(stored).toHaveLength(TURNS * CALLS_PER_TURN);
    const first = await toolCardIds(phone.page);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(stored.length);
    // The newest cards, in order: the window is the tail of the run.
    expect(first).toEqual(stored.slice(stored.length - first.length));

    await byTestId(phone.page, 'run-earlier').click();
    await until(
      'every card',
      () => toolCardIds(phone.page),
      (ids) => ids.length === stored.length,
    );
    expect(await toolCardIds(phone.page)).toEqual(stored);
    await byTestId(phone.page, 'run-earlier').waitFor({ state: 'detached' });
  }, 90_000);
});
