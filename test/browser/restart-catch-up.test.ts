/**
 * Catching up on what happened while the page was cut off. The phone reaches the host
 * through a proxy that can drop and refuse its connections (support/cut-off-proxy.ts);
 * a laptop is paired directly. Twice the run goes on without the phone, and on reconnect
 * the phone's tool cards are exactly the store's tool calls (ids, order, states), none
 * missing and none twice:
 * - a run parked on an approval while the host is killed (SIGKILL) and restarted, then
 *   approved on the laptop, runs the command and proposes new tool calls, all before the
 *   phone is let through again;
 * - with the host up, the phone's socket is dropped while a command runs, and the run's
 *   later tool calls are created while the phone retries.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
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
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { startCutOffProxy, type CutOffProxy } from './support/cut-off-proxy.js';
import { storeEvents, storeRuns, storeToolCalls } from './support/store-reader.js';
import { runCommand } from './support/turns.js';

let browser: Browser;
let app: AppHost;
let proxy: CutOffProxy;
/** Reaches the host through the proxy. */
let phone: Device;
/** Reaches the host directly; answers the approval while the phone is cut off. */
let laptop: Device;

const list = (id: string) => ({ id, name: 'list_directory', arguments: '{"path":"."}' });

/** The phone's tool cards as `id:state`, in page order. */
const shownCalls = () =>
  byTestId(phone.page, 'tool-card').evaluateAll((cards) =>
    cards.map(
      (card) => `${card.getAttribute('data-tool-call-id')}:${card.getAttribute('data-state')}`,
    ),
  );

const storedCalls = (runId: string) =>
  storeToolCalls(app.dataDir, runId).map((call) => `${call.id}:${call.state}`);

/** Cuts the phone off and waits until its banner counts a reconnect attempt. */
async function cutPhoneOff(): Promise<void> {
  proxy.cut();
  const banner = byTestId(phone.page, 'connection-banner', { status: 'reconnecting' });
  await visible(banner);
  await until(
    'the banner to count a reconnect attempt',
    () => banner.textContent(),
    (text) => /reconnecting \(attempt [1-9]\d*\)/.test(text ?? ''),
  );
  await visible(byTestId(phone.page, 'stale-marker'));
}

/**
 * Lets the phone through again and waits until its banner says `status` (`host-restarted`
 * for a new host instance, else `live`) and it shows `runId` finished; then its tool cards
 * must be the store's tool calls exactly, each once.
 */
async function expectCaughtUp(runId: string, status: 'live' | 'host-restarted'): Promise<void> {
  proxy.restore();
  // Its next attempt comes after its backoff wait: no `online` event cuts it short here.
  await until(
    `the banner to say ${status}`,
    () => byTestId(phone.page, 'connection-banner').getAttribute('data-status'),
    (shown) => shown === 'live' || shown === 'host-restarted',
    { timeout: 45_000 },
  );
  expect(await byTestId(phone.page, 'connection-banner').getAttribute('data-status')).toBe(status);
  await visible(
    byTestId(phone.page, 'run-screen', {
      'run-id': runId,
      state: 'succeeded',
      'session-idle': 'true',
    }),
  );
  await byTestId(phone.page, 'stale-marker').waitFor({ state: 'hidden' });
  const stored = storedCalls(runId);
  await until(
    'the tool cards to be the stored tool calls',
    shownCalls,
    (shown) => JSON.stringify(shown) === JSON.stringify(stored),
  );
  const shown = await shownCalls();
  expect(shown, pageErrors(phone)).toEqual(stored);
  expect(new Set(shown).size).toBe(shown.length);
}

beforeAll(async () => {
  // `sleep` runs without asking; `echo` asks.
  app = await startAppHost({ config: { policy: { commands: { allow: [['sleep', '…']] } } } });
  proxy = await startCutOffProxy(() => app.origin);
  browser = await launchChromium();
  phone = await openDevice(browser, 'Cut-off iPhone', IPHONE);
  laptop = await openDevice(browser, 'Direct Laptop', { viewport: { width: 1280, height: 800 } });
  // The phone first: it learns of the laptop from its device.paired event alone, and must
  // name it when the laptop approves.
  await pairDevice(phone, app, proxy.origin);
  await pairDevice(laptop, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await app?.dispose();
});

describe('the page catching up after being cut off', () => {
  it('shows the tool calls a run made across a host restart while it was cut off, after approval on another device', async () => {
    app.model.push(
      toolCallTurn([list('call_a1'), list('call_a2'), runCommand('call_a3', 'echo approved')], {
        delayMs: 30,
      }),
      toolCallTurn([list('call_b1'), list('call_b2')], { delayMs: 30 }),
      textTurn('Listed again after the restart.'),
    );
    const runId = await submitTask(phone.page, 'List twice, echo, list twice more');
    await visible(byTestId(phone.page, 'approval-card', { state: 'pending' }));
    await visible(
      byTestId(phone.page, 'run-screen', { 'run-id': runId, state: 'waiting_for_approval' }),
    );
    await until('three tool cards', shownCalls, (shown) => shown.length === 3);
    const before = await shownCalls();

    await cutPhoneOff();
    await app.host.kill();
    await app.host.restart();
    expect(storeRuns(app.dataDir).find((run) => run.id === runId)?.state).toBe(
      'waiting_for_approval',
    );

    // The laptop reconnects to the new host instance and approves; the run goes on.
    await laptop.page.goto(`${app.origin}/#/run/${app.hostId}/${runId}`);
    const card = byTestId(laptop.page, 'approval-card', { state: 'pending' });
    await visible(byTestId(card, 'approval-digest', { match: 'true' }));
    await until(
      'Approve to be enabled on the laptop',
      () => byTestId(card, 'approval-approve').isEnabled(),
      (enabled) => enabled,
      { timeout: 30_000 },
    );
    await byTestId(card, 'approval-approve').click();
    await until(
      'the run to finish on the host',
      () => storeEvents(app.dataDir, runId).map((event) => event.type),
      (types) => types.includes('session.idle'),
      { timeout: 30_000 },
    );
    const stored = storeToolCalls(app.dataDir, runId);
    expect(stored.map((call) => [call.name, call.state])).toEqual([
      ['list_directory', 'succeeded'],
      ['list_directory', 'succeeded'],
      ['run_command', 'succeeded'],
      ['list_directory', 'succeeded'],
      ['list_directory', 'succeeded'],
    ]);
    // None of that reached the phone: it still shows what it knew, marked stale.
    expect(await shownCalls()).toEqual(before);
    expect(await byTestId(phone.page, 'connection-banner').getAttribute('data-status')).toBe(
      'reconnecting',
    );

    await expectCaughtUp(runId, 'host-restarted');
    const approval = byTestId(phone.page, 'approval-card', { state: 'approved' });
    await expect.poll(() => approval.count()).toBe(1);
    expect(await byTestId(approval, 'approval-resolved-by').textContent()).toContain(
      'approved on Direct Laptop',
    );
    expect(await byTestId(phone.page, 'approval-card').count()).toBe(1);

    // A reload rebuilds the same cards from the host.
    await phone.page.reload();
    await visible(byTestId(phone.page, 'run-screen', { 'run-id': runId, state: 'succeeded' }));
    await until('every tool card after the reload', shownCalls, (shown) => shown.length >= 5);
    expect(await shownCalls()).toEqual(storedCalls(runId));
  }, 120_000);

  it('shows the tool calls a run made while only its socket was down, the host staying up', async () => {
    app.model.push(
      toolCallTurn([runCommand('call_c1', 'sleep 2')]),
      toolCallTurn([list('call_c2'), list('call_c3')], { delayMs: 30 }),
      toolCallTurn([runCommand('call_c4', 'sleep 1')]),
      textTurn('Slept, listed, slept.'),
    );
    const runId = await submitTask(phone.page, 'Sleep, list twice, sleep');
    await visible(
      byTestId(phone.page, 'tool-card', { 'tool-name': 'run_command', state: 'running' }),
    );
    const instance = storeEvents(app.dataDir).filter((event) => event.type === 'host.started');

    await cutPhoneOff();
    await until(
      'the run to make its later tool calls',
      () => storeToolCalls(app.dataDir, runId).length,
      (count) => count === 4,
      { timeout: 30_000 },
    );
    expect((await toolCardIds(phone.page)).length).toBeLessThan(4);

    await expectCaughtUp(runId, 'live');
    expect(storeToolCalls(app.dataDir, runId).map((call) => [call.name, call.state])).toEqual([
      ['run_command', 'succeeded'],
      ['list_directory', 'succeeded'],
      ['list_directory', 'succeeded'],
      ['run_command', 'succeeded'],
    ]);
    // The same host instance all along: only the socket went.
    expect(storeEvents(app.dataDir).filter((event) => event.type === 'host.started')).toEqual(
      instance,
    );
  }, 120_000);
});
