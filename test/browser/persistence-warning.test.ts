/**
 * A host whose store cannot commit, seen from the phone (docs/operations.md "When the disk
 * fills"): the real host process under `TETHER_FAULTS=1` with its database capped by
 * `TETHER_FAULT_DB_MAX_PAGES` (a real SQLITE_FULL). Once a commit fails the page warns
 * (`host-persistence-failed`); a task submitted meanwhile is refused untried and waits on
 * the device; once space returns the warning goes and the task, sent again by the app,
 * runs exactly once.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawChannel, pairDevice as pairRawDevice } from '../support/raw-channel.js';
import { textTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { readStore, storeRuns } from './support/store-reader.js';

/** The task the phone submits while the host cannot save. */
const TASK = 'Summarise the README while the disk is full';

/** How long the app may take to send the task again once space is back: its retry backoff. */
const RESEND_TIMEOUT_MS = 40_000;

let controlDir: string;
/** The page-limit control file: `+0` leaves the database no room, `none` gives it back. */
let control: string;
let browser: Browser;
let app: AppHost;
let phone: Device;
/** A second device (a raw channel) whose command meets the full disk first. */
let other: RawChannel;

/** How many commands the store recorded under `commandId` (0 or 1: it is the primary key). */
function storedCommands(commandId: string): number {
  return readStore(app.dataDir, (db) =>
    Number(
      db.prepare('SELECT count(*) AS n FROM commands WHERE command_id = ?').pluck().get(commandId),
    ),
  );
}

beforeAll(async () => {
  controlDir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-pwa-pages-')));
  control = join(controlDir, 'max-pages');
  writeFileSync(control, 'none');
  browser = await launchChromium();
  app = await startAppHost({ env: { TETHER_FAULTS: '1', TETHER_FAULT_DB_MAX_PAGES: control } });
  phone = await openDevice(browser, 'Disk-full iPhone', IPHONE);
  await pairDevice(phone, app);
  const { host } = await pairRawDevice(await app.pairLink());
  other = await RawChannel.open(host);
}, 60_000);

afterAll(async () => {
  other?.socket.socket.terminate();
  await browser?.close();
  await app?.dispose();
  if (controlDir !== undefined) rmSync(controlDir, { recursive: true, force: true });
});

describe('a host that cannot save', () => {
  it('warns, keeps a task submitted meanwhile waiting, and runs it once when space returns', async () => {
    const page = phone.page;
    const warning = byTestId(page, 'host-persistence-failed', { 'host-id': app.hostId });
    await visible(byTestId(page, 'runs-screen'));
    expect(await warning.count(), 'no warning while the host can save').toBe(0);

    // The database may not grow: the next commit that needs a page fails with SQLITE_FULL.
    writeFileSync(control, '+0');
    const refused = await other.request('run.submit', {
      commandId: 'cmd-fill-the-disk-0001',
      input: { text: 'x'.repeat(100_000) },
    });
    expect(
      refused,
      'the host did not fail to commit: is the page-limit fault switch on?',
    ).toMatchObject({ ok: false, error: { code: 'persistence_failed', retryable: true } });

    // The phone is told, on the screen it is on.
    await visible(warning);
    expect(await warning.getAttribute('role')).toBe('alert');
    const warned = (await warning.textContent()) ?? '';
    expect(warned).toContain('cannot save right now');
    expect(warned).toContain('new tasks will be refused');
    expect(warned).toMatch(/Host reports: .*SQLITE_FULL/);

    // A task submitted now: refused untried, so it waits on the device, and nothing runs.
    await openSubmitForm(page, TASK);
    expect(await warning.isVisible(), 'the warning shows on the submit screen too').toBe(true);
    await byTestId(page, 'submit-button').click();
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'runs-screen'));
    const waiting = byTestId(page, 'outbox-item').filter({ hasText: TASK });
    await visible(waiting);
    const commandId = await waiting.getAttribute('data-command-id');
    if (commandId === null || commandId === '') throw new Error('the outbox item has no id');
    // Long enough for the app to have sent it, been refused and sent it again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await waiting.count(), 'the task still waits on the device').toBe(1);
    expect(await warning.isVisible(), 'the warning stays while commits fail').toBe(true);
    expect(storedCommands(commandId), 'the refused task was not recorded').toBe(0);
    expect(storeRuns(app.dataDir).filter((run) => run.text === TASK)).toEqual([]);
    expect(await byTestId(page, 'run-row').count(), 'no run appeared on the phone').toBe(0);
    expect(app.model.requests.length, 'no model request while commits fail').toBe(0);

    // Space returns: the host's probe notices, the warning goes, the app sends the task again.
    app.model.push(textTurn('The README describes a workspace for tests.'));
    writeFileSync(control, 'none');
    await warning.waitFor({ state: 'detached' });
    const screen = byTestId(page, 'run-screen');
    await screen.waitFor({ state: 'visible', timeout: RESEND_TIMEOUT_MS });
    await byTestId(page, 'run-task').filter({ hasText: TASK }).waitFor();
    const runs = storeRuns(app.dataDir).filter((run) => run.commandId === commandId);
    expect(
      runs.map((run) => run.text),
      'exactly one run for the task',
    ).toEqual([TASK]);
    expect(await screen.getAttribute('data-run-id')).toBe(runs[0]?.id);
    expect(storedCommands(commandId)).toBe(1);
    await byTestId(page, 'run-screen', { state: 'succeeded' }).waitFor();
    const finished = await until(
      'the stored run to succeed',
      () => storeRuns(app.dataDir).filter((run) => run.commandId === commandId),
      (stored) => stored.length === 1 && stored[0]?.state === 'succeeded',
    );
    expect(finished).toHaveLength(1);
    expect(app.model.requests.length, 'one model request: the task ran once').toBe(1);
    // The other device's refused command was never sent again, so never applied.
    expect(storedCommands('cmd-fill-the-disk-0001')).toBe(0);
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'run-row', { 'run-id': finished[0]?.id ?? '' }));
    expect(await byTestId(page, 'outbox-item').count(), 'nothing left waiting').toBe(0);
    expect(await warning.count()).toBe(0);
    expect(phone.errors, pageErrors(phone)).toEqual([]);
  }, 90_000);
});
