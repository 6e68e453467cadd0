/**
 * The installed app without a network, on `http://localhost` (a secure context, so the
 * service worker registers): a task submitted offline waits in the outbox across a reload
 * and starts exactly once when the network is back; with the network cut and the host
 * down, the shell still opens from the service worker's cache and shows the last known
 * runs, marked as possibly stale.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import {
  byTestId,
  openSubmitForm,
  pageErrors,
  pairDevice,
  submitTask,
  visible,
} from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeEvents, storeRuns, type StoredRunFacts } from './support/store-reader.js';

let browser: Browser;
let app: AppHost;
let phone: Device;

/** Whether a service worker controls the page now. */
const controlled = () => phone.page.evaluate(() => navigator.serviceWorker.controller !== null);

/** Waits until the runs list shows exactly `runs`, each in its stored state. */
async function expectRunRows(runs: StoredRunFacts[]): Promise<void> {
  const wanted = runs.map((run) => `${run.id}:${run.state}`).sort();
  await until(
    'the runs list to show the stored runs',
    () =>
      byTestId(phone.page, 'run-row').evaluateAll((rows) =>
        rows.map((row) => `${row.getAttribute('data-run-id')}:${row.getAttribute('data-state')}`),
      ),
    (shown) => JSON.stringify([...shown].sort()) === JSON.stringify(wanted),
  );
}

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  phone = await openDevice(browser, 'Offline iPhone', IPHONE);
  await pairDevice(phone, app, app.localhostOrigin);
}, 60_000);

afterEach(async () => {
  // A failed test must not leave the next one without a network or a host. Only when it
  // did: Chromium then keeps a later offline switch from closing the page's open socket.
  if (await phone.page.evaluate(() => !navigator.onLine)) await phone.context.setOffline(false);
  const up = await fetch(`${app.origin}/v1/health`).then(
    (response) => response.ok,
    () => false,
  );
  if (!up) await app.host.restart();
});

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the app offline', () => {
  it('registers its service worker on http://localhost and is controlled by it after a reload', async () => {
    expect(new URL(phone.page.url()).hostname).toBe('localhost');
    const scriptUrl = await phone.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return registration.active?.scriptURL ?? null;
    });
    expect(scriptUrl, pageErrors(phone)).toMatch(new RegExp(`^${app.localhostOrigin}/`));
    expect(phone.context.serviceWorkers().map((worker) => worker.url())).toContain(scriptUrl);

    await phone.page.reload();
    await visible(byTestId(phone.page, 'runs-screen'));
    expect(await controlled()).toBe(true);
  }, 90_000);

  it('keeps a task submitted offline waiting across a reload, and starts it exactly once online', async () => {
    await until('a service worker to control the page', controlled, (yes) => yes);
    const text = 'Submitted without a network';
    app.model.push(textTurn(['Sent ', 'once.']));
    await phone.context.setOffline(true);
    await until(
      'the banner to say offline',
      () => byTestId(phone.page, 'connection-banner').evaluate((banner) => banner.outerHTML),
      (html) => html.includes('data-status="offline"'),
    );
    await openSubmitForm(phone.page, text);
    await byTestId(phone.page, 'submit-button').click();

    const waiting = byTestId(phone.page, 'outbox-item', { state: 'waiting' }).filter({
      hasText: text,
    });
    await visible(waiting);
    await visible(byTestId(phone.page, 'runs-screen'));
    expect(await waiting.textContent()).toContain('waiting to send');

    await phone.page.reload();
    await visible(byTestId(phone.page, 'runs-screen'));
    await visible(waiting);
    expect(await waiting.count()).toBe(1);
    expect(storeRuns(app.dataDir).filter((run) => run.text === text)).toEqual([]);

    await phone.context.setOffline(false);
    const [run] = await until(
      'the run to finish on the host',
      () => storeRuns(app.dataDir).filter((candidate) => candidate.text === text),
      (runs) => runs.length > 0 && runs[0]!.state === 'succeeded',
      { timeout: 30_000 },
    );
    await visible(byTestId(phone.page, 'run-row', { 'run-id': run!.id, state: 'succeeded' }));
    await byTestId(phone.page, 'outbox-item')
      .filter({ hasText: text })
      .waitFor({ state: 'detached' });
    await until(
      'session.idle of the run',
      () => storeEvents(app.dataDir, run!.id).map((event) => event.type),
      (types) => types.includes('session.idle'),
    );

    // One command, one run, once: the resend after the reload was deduplicated, if sent.
    expect(storeRuns(app.dataDir).filter((candidate) => candidate.text === text)).toHaveLength(1);
    const queued = storeEvents(app.dataDir).filter(
      (event) => event.type === 'run.queued' && event.payload['commandId'] === run!.commandId,
    );
    expect(queued.map((event) => event.runId)).toEqual([run!.id]);
    expect(app.model.pending).toBe(0);
  }, 90_000);

  it('opens the shell from the cache with the network cut and the host down, showing the last runs as stale', async () => {
    app.model.push(textTurn('Known before the network went.'));
    const earlier = await submitTask(phone.page, 'A run to see offline');
    await visible(
      byTestId(phone.page, 'run-screen', { 'run-id': earlier, 'session-idle': 'true' }),
    );
    await byTestId(phone.page, 'nav-runs').click();
    const runs = storeRuns(app.dataDir);
    expect(runs.map((run) => run.id)).toContain(earlier);
    await expectRunRows(runs);
    await app.host.stop();
    await phone.context.setOffline(true);

    await phone.page.reload();
    await visible(byTestId(phone.page, 'runs-screen'));
    await expectRunRows(runs);
    await visible(byTestId(phone.page, 'stale-marker'));
    const status = await byTestId(phone.page, 'connection-banner').getAttribute('data-status');
    expect(['offline', 'reconnecting', 'connecting']).toContain(status);
    // Not "last seen now" for this device while nothing reaches the host.
    await byTestId(phone.page, 'nav-devices').click();
    const self = byTestId(phone.page, 'device-row', { current: 'true' });
    expect(await self.getByTestId('device-last-seen').textContent()).not.toMatch(/last seen now/);
    await byTestId(phone.page, 'nav-runs').click();

    await app.host.restart();
    await phone.context.setOffline(false);
    await until(
      'the banner to show the host again',
      () => byTestId(phone.page, 'connection-banner').getAttribute('data-status'),
      (now) => now === 'live' || now === 'host-restarted',
      { timeout: 30_000 },
    );
    await byTestId(phone.page, 'stale-marker').waitFor({ state: 'hidden' });
  }, 90_000);
});
