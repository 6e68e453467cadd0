/**
 * The PWA in WebKit, Safari's engine (WebKitGTK's MiniBrowser through WebKitWebDriver, on
 * its own Xvfb display), against the real host, on `http://localhost` (a secure context):
 * the page loads without a CSP directive or viewport key WebKit does not know; then one
 * device pairs through the link, streams a run and approves its command (the run's buttons
 * staying put while the text streams), shows two panes at iPad size, keeps a task in its
 * outbox across a reload with the host down (the service worker serves the shell) and
 * sends it once the host is back, and is revoked by the host. Screenshots go to
 * test-results/screenshots.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import type { AppHost } from './support/app-host.js';
import { storeDevices, storeEvents, storeRuns, storeToolCalls } from './support/store-reader.js';
import { runCommand, sayThenCall, words } from './support/turns.js';
import { WEBKIT_START_MS, WEBKIT_STEP_MS, type WebKit, type WebKitPage } from './support/webkit.js';
import { openWebKitApp, testId, type WebKitApp } from './support/webkit-app.js';

const DEVICE_NAME = 'WebKit iPhone';
/** A test's budget: several steps of up to WEBKIT_STEP_MS each under a loaded machine. */
const TEST_MS = 180_000;

let opened: WebKitApp;
let webkit: WebKit;
let app: AppHost;
let phone: WebKitPage;

/** How many elements match `css` on the page now. */
async function count(page: WebKitPage, css: string): Promise<number> {
  return Number(await page.evaluate('return document.querySelectorAll(arguments[0]).length;', css));
}

/** The length of the streaming answer's text, 0 while there is none. */
async function streamedLength(page: WebKitPage): Promise<number> {
  return Number(
    await page.evaluate(
      `const message = document.querySelector(arguments[0]);
       return message === null ? 0 : (message.textContent ?? '').length;`,
      testId('assistant-message', { streaming: 'true' }),
    ),
  );
}

beforeAll(async () => {
  opened = await openWebKitApp();
  ({ webkit, app } = opened);
}, WEBKIT_START_MS * 2);

afterEach(async () => {
  // A failed test must not leave the next one without a host.
  const up = await fetch(`${app.origin}/v1/health`).then(
    (response) => response.ok,
    () => false,
  );
  if (!up) await app.host.restart();
});

afterAll(async () => opened?.close());

describe('the PWA in WebKit against the real host', () => {
  it(
    'loads without a CSP directive or a viewport key that WebKit does not know',
    async () => {
      // What WebKit printed for the app's old headers: the probe can see what it looks for.
      const old: Server = createServer((_request, response) => {
        response.setHeader(
          'Content-Security-Policy',
          "default-src 'self'; worker-src 'self'; manifest-src 'self'",
        );
        response.setHeader('Content-Type', 'text/html; charset=utf-8');
        response.end(
          '<!doctype html><meta name="viewport" content="width=device-width, interactive-widget=resizes-content"><p>old</p>',
        );
      });
      await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
      const address = old.address();
      const oldPort = typeof address === 'object' && address !== null ? address.port : 0;
      const control = webkit.openWithConsole(`http://localhost:${oldPort}/`);
      try {
        await until(
          'WebKit to report the old headers',
          () => control.output(),
          (printed) =>
            printed.includes("Unrecognized Content-Security-Policy directive 'manifest-src'") &&
            printed.includes('Viewport argument key "interactive-widget" not recognized'),
          { timeout: WEBKIT_START_MS },
        );
      } finally {
        await control.close();
        old.close();
      }

      // The app, as far as pairing: by then the document and its headers were long parsed.
      const offer = await app.host.offer(app.localhostOrigin);
      const window = webkit.openWithConsole(offer.link);
      try {
        await until('the console window to pair', () => app.offerSas(offer.offerId), {
          timeout: WEBKIT_START_MS,
        });
        const printed = window.output();
        expect(printed).not.toContain('Content-Security-Policy');
        expect(printed).not.toContain('Viewport argument');
        expect(printed).not.toContain('Refused to');
      } finally {
        await window.close();
      }
    },
    TEST_MS,
  );

  it(
    'pairs through the link and shows the SAS the host computed',
    async () => {
      phone = await webkit.newPage();
      // As near an iPhone's 390×844 as MiniBrowser's window gets: one column either way.
      const [width] = await phone.setViewport(390, 844);
      expect(width).toBeLessThan(900);
      // The device's name is read from localStorage when it pairs: set it on the origin first.
      await phone.goto(`${app.localhostOrigin}/v1/health`);
      await phone.evaluate('localStorage.setItem("tether.deviceName", arguments[0]);', DEVICE_NAME);
      const offer = await app.host.offer(app.localhostOrigin);
      await phone.goto(offer.link);
      const pageSas = (await phone.text(testId('pair-sas'))).replace(/\D/g, '');
      expect(pageSas).toMatch(/^\d{6}$/);
      expect(pageSas).toBe(await app.offerSas(offer.offerId));
      await phone.click(testId('pair-done'));
      await phone.waitVisible(testId('runs-screen'));
      expect(await phone.url()).not.toContain('#pair=');
      expect(storeDevices(app.dataDir).map((device) => device.name)).toContain(DEVICE_NAME);
    },
    TEST_MS,
  );

  it(
    'streams a run and approves its command; the run buttons stay put meanwhile',
    async () => {
      app.model.push(
        // The text before the call streams for ~12 s: the page must be seen while it streams
        // (the preview is gone once the message completes, and nothing more streams until the
        // approval below), and WebDriver's polls took seconds each under the full suite's load
        // where 80 words at 50 ms were over before the first one.
        sayThenCall(words(120), [runCommand('call_webkit', 'echo hello-from-webkit')], 100),
        textTurn(words(300, 'after'), { delayMs: 15 }),
      );
      await phone.click(testId('nav-submit'));
      await phone.type(testId('submit-text'), 'Stream in WebKit, then run echo');
      await phone.click(testId('submit-button'));
      await phone.waitVisible(testId('run-screen'));
      const runId = String(
        await phone.evaluate(
          'return document.querySelector(arguments[0]).dataset.runId;',
          testId('run-screen'),
        ),
      );

      // The answer grows on the page while it streams.
      const first = await until(
        'streamed text',
        () => streamedLength(phone),
        (length) => length > 0,
        { timeout: WEBKIT_STEP_MS },
      );
      await until(
        'the streamed text to grow',
        () => streamedLength(phone),
        (length) => length > first,
        { timeout: WEBKIT_STEP_MS },
      );
      const cancelEarly = await phone.box(testId('run-cancel'));

      const card = testId('approval-card', { state: 'pending' });
      await phone.waitVisible(card);
      expect(await phone.text(`${card} ${testId('approval-command')}`)).toContain(
        'echo hello-from-webkit',
      );
      await phone.waitVisible(`${card} ${testId('approval-digest', { match: 'true' })}`);
      expect(await phone.text(testId('approvals-count'))).toBe('1');
      await phone.click(`${card} ${testId('approval-approve')}`);
      await phone.waitVisible(testId('approval-card', { state: 'approved' }));

      await until(
        'the answer after the command to stream',
        () => streamedLength(phone),
        (length) => length > 600,
        { timeout: WEBKIT_STEP_MS },
      );
      // Stay put: WebKit lays text out in 1/64 px steps, so a line that reflowed meanwhile
      // moves the buttons by a fraction of a pixel no one sees; a pixel or more is a jump.
      const cancelLate = await phone.box(testId('run-cancel'));
      expect({ ...cancelLate, y: 0 }).toEqual({ ...cancelEarly, y: 0 });
      expect(Math.abs(cancelLate.y - cancelEarly.y)).toBeLessThan(1);
      await phone.screenshot('webkit-phone-streaming');

      await phone.waitVisible(
        testId('run-screen', { 'run-id': runId, state: 'succeeded', 'session-idle': 'true' }),
      );
      const resolved = storeEvents(app.dataDir, runId).filter(
        (event) => event.type === 'tool.approval_resolved',
      );
      expect(resolved.map((event) => event.payload['decision'])).toEqual(['approved']);
      const calls = storeToolCalls(app.dataDir, runId);
      expect(calls.map((call) => call.state)).toEqual(['succeeded']);
      expect(
        await phone.evaluate(
          'return [...document.querySelectorAll(arguments[0])].map((card) => card.dataset.toolCallId);',
          testId('tool-card'),
        ),
      ).toEqual(calls.map((call) => call.id));
    },
    TEST_MS,
  );

  it(
    'shows the runs list and the open run side by side at iPad size',
    async () => {
      await phone.evaluate('scrollTo(0, 0);');
      expect(await phone.setViewport(1180, 820)).toEqual([1180, 820]);
      await phone.waitVisible(testId('two-panes'));
      const list = await phone.box(testId('runs-screen'));
      const run = await phone.box(testId('run-screen'));
      expect(list.x + list.width).toBeLessThanOrEqual(run.x + 1);
      expect(Math.abs(list.y - run.y)).toBeLessThan(40);
      expect(run.width).toBeGreaterThan(list.width);
      await phone.screenshot('webkit-two-panes-1180x820');
      await phone.setViewport(390, 844);
      await until(
        'one column again',
        () => count(phone, testId('two-panes')),
        (shown) => shown === 0,
        { timeout: WEBKIT_STEP_MS },
      );
    },
    TEST_MS,
  );

  it(
    'keeps a task in the outbox across a reload with the host down, and sends it once when it is back',
    async () => {
      // The shell comes from the service worker's cache once the host is down.
      await phone.waitFor(
        'a service worker to be active',
        'return (await navigator.serviceWorker.ready).active !== null;',
      );
      await phone.goto(`${app.localhostOrigin}/#/runs`);
      await phone.waitVisible(testId('runs-screen'));
      expect(await phone.evaluate('return navigator.serviceWorker.controller !== null;')).toBe(
        true,
      );

      const text = 'Submitted in WebKit with the host down';
      app.model.push(textTurn(['Sent ', 'once.']));
      await app.host.stop();
      await phone.waitFor(
        'the banner to leave live',
        'return document.querySelector(arguments[0])?.dataset.status !== "live";',
        testId('connection-banner'),
      );
      await phone.click(testId('nav-submit'));
      await phone.type(testId('submit-text'), text);
      await phone.click(testId('submit-button'));
      const waiting = testId('outbox-item', { state: 'waiting' });
      await phone.waitVisible(waiting);
      await phone.waitVisible(testId('runs-screen'));

      await phone.reload();
      await phone.waitVisible(testId('runs-screen'));
      await phone.waitVisible(waiting);
      expect(await phone.text(waiting)).toContain(text);
      expect(await count(phone, testId('outbox-item'))).toBe(1);
      expect(storeRuns(app.dataDir).filter((run) => run.text === text)).toEqual([]);

      await app.host.restart();
      const [run] = await until(
        'the run to finish on the host',
        () => storeRuns(app.dataDir).filter((candidate) => candidate.text === text),
        (runs) => runs.length > 0 && runs[0]!.state === 'succeeded',
        { timeout: WEBKIT_STEP_MS },
      );
      await phone.waitVisible(testId('run-row', { 'run-id': run!.id, state: 'succeeded' }));
      await until(
        'the outbox to empty',
        () => count(phone, testId('outbox-item')),
        (left) => left === 0,
        { timeout: WEBKIT_STEP_MS },
      );
      expect(storeRuns(app.dataDir).filter((candidate) => candidate.text === text)).toHaveLength(1);
    },
    TEST_MS,
  );

  it(
    'is revoked by the host: the page says so, shows pairing and has forgotten the host',
    async () => {
      const deviceId = storeDevices(app.dataDir).find(
        (device) => device.name === DEVICE_NAME,
      )!.deviceId;
      const response = await app.host.admin('POST', `/admin/api/devices/${deviceId}/revoke`);
      expect(response.status).toBe(200);
      expect(await phone.text(testId('revoked-notice'))).toContain('This device was revoked');
      await phone.waitVisible(testId('pair-screen'));
      await phone.reload();
      await phone.waitVisible(testId('pair-screen'));
      expect(await count(phone, testId('nav-runs'))).toBe(0);
    },
    TEST_MS,
  );
});
