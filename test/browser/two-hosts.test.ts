/**
 * One app, two hosts: the app is loaded from host A and paired with A through its link,
 * then with host B by pasting B's link, so B's channel is a WebSocket to another origin
 * than the page's (connect-src `'self' ws: wss:`, docs/security.md). Both hosts show under
 * their names, each pairing shows the SAS its host computed, a task submitted to B from
 * A's page runs on B (and only there) to the end, B's download link names B and opens as
 * a navigation; and the page reports no CSP violation throughout. A last check, in Node:
 * B issues links on its own origin whatever page Origin the socket came with.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, visible } from './support/app-page.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeEvents, storeRuns, storeToolCalls } from './support/store-reader.js';
import { runCommand } from './support/turns.js';

let browser: Browser;
/** The host that serves the app. */
let studio: AppHost;
/** The second host, reached only over its WebSocket from the app studio served. */
let office: AppHost;
let laptop: Device;
/** CSP violations the page reported: `securitypolicyviolation` events and console lines. */
const violations: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  [studio, office] = await Promise.all([
    startAppHost({ env: { TETHER_HOST_NAME: 'Studio Mac' } }),
    startAppHost({ env: { TETHER_HOST_NAME: 'Office Mac' } }),
  ]);
  laptop = await openDevice(browser, 'Two-host Laptop', { viewport: { width: 1280, height: 800 } });
  // Bindings outlive navigations, so the listener reports from every document the page loads.
  await laptop.context.exposeBinding('reportCspViolation', (_source, text: string) => {
    violations.push(text);
  });
  await laptop.context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportCspViolation: (text: string) => void })
        .reportCspViolation;
      void report(`${event.effectiveDirective} blocked ${event.blockedURI}`);
    });
  });
  laptop.page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([studio?.dispose(), office?.dispose()]);
});

describe('one app paired with two hosts', () => {
  it('pairs the second host from a pasted link and runs a task on it from the page the first served', async () => {
    const page = laptop.page;
    await page.goto(`${studio.origin}/`);
    await visible(byTestId(page, 'pair-screen'));
    const studioPairing = await pairDevice(laptop, studio);
    expect(studioPairing.pageSas).toMatch(/^\d{6}$/);
    expect(studioPairing.pageSas).toBe(studioPairing.hostSas);

    // The second host: its link pasted into the pair screen of the app studio served.
    await page.evaluate(() => {
      location.hash = '#/pair';
    });
    await visible(byTestId(page, 'pair-screen'));
    const offer = await office.host.offer();
    expect(new URL(offer.link).origin).not.toBe(new URL(page.url()).origin);
    await byTestId(page, 'pair-link-input').fill(offer.link);
    await byTestId(page, 'pair-submit').click();
    // A socket the CSP refuses ends as "cannot reach the host", not as a hang.
    await visible(byTestId(page, 'pair-sas').or(byTestId(page, 'pair-error')));
    expect(await byTestId(page, 'pair-error').count(), violations.join('\n')).toBe(0);
    const sas = byTestId(page, 'pair-sas');
    const officeSas = ((await sas.textContent()) ?? '').replace(/\D/g, '');
    expect(officeSas, pageErrors(laptop)).toMatch(/^\d{6}$/);
    expect(officeSas).toBe(await office.offerSas(offer.offerId));
    await byTestId(page, 'pair-done').click();
    await visible(byTestId(page, 'runs-screen'));
    expect(new URL(page.url()).origin).toBe(studio.origin);

    await expect
      .poll(() => byTestId(page, 'host-name').allTextContents())
      .toEqual(['Studio Mac', 'Office Mac']);
    await visible(byTestId(page, 'connection-banner', { status: 'live' }));

    office.model.push(
      toolCallTurn([runCommand('call_office_echo', 'echo hello-from-the-office-mac')]),
      textTurn('Done on the office Mac.'),
    );
    const task = 'Run echo on the office Mac';
    await byTestId(page, 'nav-submit').click();
    await visible(byTestId(page, 'submit-screen'));
    // The form is per host: choose the host before typing, or the text goes with the old form.
    await byTestId(page, 'submit-host').selectOption(office.hostId);
    await byTestId(page, 'submit-text').fill(task);
    await byTestId(page, 'submit-button').click();
    const screen = await visible(byTestId(page, 'run-screen'));
    await byTestId(page, 'run-task').filter({ hasText: task }).waitFor();
    const runId = await screen.getAttribute('data-run-id');
    expect(page.url()).toContain(`#/run/${office.hostId}/${runId}`);

    const card = byTestId(page, 'approval-card', { state: 'pending' });
    await visible(byTestId(card, 'approval-digest', { match: 'true' }));
    await byTestId(card, 'approval-approve').click();
    await visible(
      byTestId(page, 'run-screen', {
        'run-id': runId!,
        state: 'succeeded',
        'session-idle': 'true',
      }),
    );
    expect(storeRuns(office.dataDir).map((run) => [run.id, run.text, run.state])).toEqual([
      [runId, task, 'succeeded'],
    ]);
    expect(storeRuns(studio.dataDir)).toEqual([]);
    expect(
      storeEvents(office.dataDir, runId!)
        .map((event) => event.type)
        .slice(-2),
    ).toEqual(['run.finished', 'session.idle']);
    const [call] = storeToolCalls(office.dataDir, runId!);
    await visible(byTestId(page, 'tool-card', { 'tool-call-id': call!.id, state: 'succeeded' }));

    // The full output is read over office's channel; its download link is office's, not
    // the page's origin, and opens as a navigation (CSP does not govern it).
    await byTestId(page, 'tool-output-load').click();
    await expect
      .poll(() => byTestId(page, 'tool-output-full').textContent())
      .toContain('hello-from-the-office-mac');
    const link = await visible(byTestId(page, 'tool-output-download'));
    const href = (await link.getAttribute('href')) ?? '';
    expect(new URL(href).origin).toBe(office.origin);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(readFileSync(await download.path(), 'utf8')).toContain('hello-from-the-office-mac');
    await visible(byTestId(page, 'run-screen', { 'run-id': runId!, state: 'succeeded' }));
    expect(new URL(page.url()).origin).toBe(studio.origin);

    // None at all: not even zod's probe for `new Function` (the app sets it jitless).
    expect(violations, pageErrors(laptop)).toEqual([]);
  }, 120_000);

  it('the second host issues download links on its own origin, never on the Origin of the page the first served', async () => {
    const [run] = storeRuns(office.dataDir);
    const [call] = storeToolCalls(office.dataDir, run!.id);
    const port = new URL(office.origin).port;
    const clientRoot = mkdtempSync(join(tmpdir(), 'tether-two-hosts-client-'));
    const linkWith = async (name: string, headers: Record<string, string>) => {
      const client = new TetherClient({
        storage: new FileStorage(join(clientRoot, `${name}.json`)),
        socketFactory: nodeWebSocketFactory({ headers }),
      });
      try {
        const paired = await client.pair(await office.pairLink(), { name, platform: 'node' });
        const connection = await client.connect(paired.hostId);
        return (await connection.request('download.link', { toolCallId: call!.id })).url;
      } finally {
        await client.close();
      }
    };
    try {
      // The app studio served (over https, behind tailscale serve) opens office's socket
      // through office's own proxy: the page's Origin names studio.
      const proxied = await linkWith('proxied', {
        host: 'office.tail1234.ts.net',
        'x-forwarded-host': 'office.tail1234.ts.net',
        'x-forwarded-proto': 'https',
        origin: 'https://studio.tail1234.ts.net',
      });
      expect(new URL(proxied).origin).toBe('https://office.tail1234.ts.net');
      // A browser on this computer: an https page may open a loopback ws: socket.
      const loopback = await linkWith('loopback', {
        host: `127.0.0.1:${port}`,
        origin: 'https://studio.tail1234.ts.net',
      });
      expect(new URL(loopback).origin).toBe(`http://127.0.0.1:${port}`);
      // The same origin as before: an https Origin naming the host it came for is believed.
      const same = await linkWith('same', {
        host: 'office.tail1234.ts.net',
        origin: 'https://office.tail1234.ts.net',
      });
      expect(new URL(same).origin).toBe('https://office.tail1234.ts.net');
    } finally {
      rmSync(clientRoot, { recursive: true, force: true });
    }
  }, 60_000);
});
