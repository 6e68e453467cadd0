/**
 * A run the host died in, as the page shows it and lets the user settle it: the host is
 * SIGKILLed right after it spawned a command (the `tool-spawned` fault point), so after
 * the restart the run is `interrupted` and the command's call `unknown`. The page explains
 * both in plain words; Reconcile records the user's verdict (`toolcall.reconcile`, a
 * `tool.reconciled` event) without running anything; Continue starts the continuation,
 * which the page opens and follows to its end.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { readStore, storeEvents, storeRuns, storeToolCalls } from './support/store-reader.js';

const FAULT_LINE = 'fault point tool-spawned reached: killing';

let browser: Browser;
let app: AppHost;
let phone: Device;
/** The fault switches; emptied before the restart, which reads them again. */
const faults: Record<string, string> = {
  TETHER_FAULTS: '1',
  TETHER_FAULT_POINT: 'tool-spawned',
};

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({
    env: faults,
    config: { policy: { tools: { run_command: 'allow' } } },
  });
  phone = await openDevice(browser, 'Crash iPhone', IPHONE);
  await pairDevice(phone, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('a run the host died in', () => {
  it('is explained, its unknown call reconciled, and continued from the page', async () => {
    const page = phone.page;
    app.model.push(
      toolCallTurn([{ id: 'call_tidy', name: 'run_command', arguments: '{"command":"sleep 30"}' }]),
    );
    // Sent, not awaited: the host may die before its answer leaves, and then the page gets
    // it (its outbox resends, deduplicated) only from the restarted host.
    await openSubmitForm(page, 'Tidy up the build folder');
    await byTestId(page, 'submit-button').click();
    await until(
      'the fault point to kill the host',
      () => app.host.output(),
      (output) => output.includes(FAULT_LINE),
    );
    const [submitted] = storeRuns(app.dataDir);
    const runId = submitted!.id;
    for (const name of Object.keys(faults)) delete faults[name];
    await app.host.restart();

    const runScreen = byTestId(page, 'run-screen', { 'run-id': runId, state: 'interrupted' });
    await visible(runScreen);
    expect(await byTestId(page, 'run-explain').textContent()).toMatch(
      /host stopped .* did not\s+finish/,
    );
    const [call] = storeToolCalls(app.dataDir, runId);
    expect(call).toMatchObject({ name: 'run_command', state: 'unknown' });
    const card = byTestId(page, 'tool-card', { 'tool-call-id': call!.id, state: 'unknown' });
    await visible(card);
    expect(await card.textContent()).toMatch(/nobody knows whether it finished/);
    expect(await card.textContent()).toMatch(/will not run it again by itself/);

    // Reconcile: the verdict is recorded as a new event; nothing runs, the state stays.
    await card.getByTestId('tool-reconcile').click();
    await card.getByTestId('tool-reconcile-not-happened').click();
    await visible(card.getByTestId('tool-reconciled'));
    expect(await card.getByTestId('tool-reconciled').textContent()).toMatch(
      /You said: it did not happen/,
    );
    const reconciled = storeEvents(app.dataDir, runId).filter(
      (event) => event.type === 'tool.reconciled',
    );
    expect(reconciled).toHaveLength(1);
    expect(reconciled[0]).toMatchObject({
      toolCallId: call!.id,
      payload: { outcome: 'did_not_happen' },
    });
    expect(storeToolCalls(app.dataDir, runId).map((stored) => stored.state)).toEqual(['unknown']);

    // Continue: a new run in the same session picks up from here; the page opens it.
    app.model.push(textTurn('The folder was never touched, so I left it as it was.'));
    await byTestId(page, 'run-continue').click();
    const continuedId = await until(
      'the continuation’s run screen',
      () => byTestId(page, 'run-screen').getAttribute('data-run-id'),
      (id) => id !== null && id !== runId,
    );
    await visible(
      byTestId(page, 'run-screen', {
        'run-id': continuedId!,
        state: 'succeeded',
        'session-idle': 'true',
      }),
    );
    const continues = readStore(app.dataDir, (db) =>
      db.prepare('SELECT continues_run_id FROM runs WHERE id = ?').get(continuedId),
    ) as { continues_run_id: string | null };
    expect(continues.continues_run_id).toBe(runId);
    // The continuation's model request saw the verdict, not a second run of the command.
    const lastRequest = JSON.stringify(app.model.requests.at(-1));
    expect(lastRequest).toMatch(/outcome unknown/);
    expect(storeToolCalls(app.dataDir, continuedId!), pageErrors(phone)).toEqual([]);
  }, 90_000);
});
