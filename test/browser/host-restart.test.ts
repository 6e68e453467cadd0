/**
 * The page while its host dies mid-tool (SIGKILL) and comes back on the same port and data:
 * the banner says it is reconnecting and counts attempts, the data is marked stale, and
 * after the restart the run screen catches up to exactly the store's tool calls, none
 * missing and none twice, with the interrupted run and its unknown tool call explained.
 */
import { closeSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import {
  byTestId,
  pageErrors,
  pairDevice,
  submitTask,
  toolCardIds,
  visible,
} from './support/app-page.js';
import { until } from '../support/wait.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeEvents, storeToolCalls } from './support/store-reader.js';

let browser: Browser;
let app: AppHost;
let laptop: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  laptop = await openDevice(browser, 'Restart Laptop', { viewport: { width: 1280, height: 800 } });
  await pairDevice(laptop, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the page across a host crash and restart', () => {
  it('shows reconnecting while the host is down, then catches up with no missing or doubled tool cards', async () => {
    // A sparse 4 GiB file: read_file hashes all of it, which keeps the tool running for seconds.
    const huge = openSync(join(app.host.workspace, 'huge.bin'), 'w');
    ftruncateSync(huge, 4 * 2 ** 30);
    closeSync(huge);
    const list = (id: string) => ({ id, name: 'list_directory', arguments: '{"path":"."}' });
    app.model.push(
      toolCallTurn([list('call_list_1'), list('call_list_2')], { delayMs: 30 }),
      toolCallTurn([{ id: 'call_huge', name: 'read_file', arguments: '{"path":"huge.bin"}' }]),
    );
    const runId = await submitTask(laptop.page, 'List twice, then read huge.bin');
    const page = laptop.page;
    await visible(byTestId(page, 'connection-banner', { status: 'live' }));
    await visible(byTestId(page, 'tool-card', { 'tool-name': 'read_file', state: 'running' }));
    expect(await toolCardIds(page)).toHaveLength(3);

    await app.host.kill();
    const banner = byTestId(page, 'connection-banner', { status: 'reconnecting' });
    await visible(banner);
    await until(
      'the banner to count a reconnect attempt',
      () => banner.textContent(),
      (text) => /reconnecting \(attempt [1-9]\d*\)/.test(text ?? ''),
    );
    await visible(byTestId(page, 'stale-marker'));
    // Still what was known: three cards, the read still shown as running.
    expect(await toolCardIds(page)).toHaveLength(3);

    await app.host.restart();
    rmSync(join(app.host.workspace, 'huge.bin'));
    await visible(
      byTestId(page, 'run-screen', {
        'run-id': runId,
        state: 'interrupted',
        'session-idle': 'true',
      }),
    );
    await until(
      'the banner to leave reconnecting',
      () => byTestId(page, 'connection-banner').getAttribute('data-status'),
      (status) => status === 'live' || status === 'host-restarted',
      { timeout: 30_000 },
    );
    await byTestId(page, 'stale-marker').waitFor({ state: 'hidden' });

    const stored = storeToolCalls(app.dataDir, runId);
    expect(stored.map((call) => [call.name, call.state])).toEqual([
      ['list_directory', 'succeeded'],
      ['list_directory', 'succeeded'],
      ['read_file', 'unknown'],
    ]);
    const shown = await toolCardIds(page);
    expect(shown, pageErrors(laptop)).toEqual(stored.map((call) => call.id));
    expect(new Set(shown).size).toBe(shown.length);
    for (const call of stored) {
      await visible(byTestId(page, 'tool-card', { 'tool-call-id': call.id, state: call.state }));
    }
    const unknown = byTestId(page, 'tool-card', { state: 'unknown' });
    await visible(byTestId(unknown, 'tool-reconcile'));
    await visible(byTestId(page, 'run-continue'));
    const types = storeEvents(app.dataDir, runId).map((event) => event.type);
    expect(types.slice(-3)).toEqual(['tool.finished', 'run.finished', 'session.idle']);

    // A reload rebuilds the same screen from the host, again without doubles.
    await page.reload();
    await visible(byTestId(page, 'run-screen', { 'run-id': runId, state: 'interrupted' }));
    await until(
      'every tool card after the reload',
      () => toolCardIds(page),
      (ids) => ids.length >= stored.length,
    );
    expect(await toolCardIds(page)).toEqual(stored.map((call) => call.id));
  }, 90_000);
});
