/**
 * Issue 16 in the built app, headless Chromium, real host: a run that creates a file (whose
 * name hides a bidi override), edits the README and runs a command that exits 2. The run
 * screen shows the host's token usage and the estimate from the configured price, and a
 * Changes link counting three calls; the Changes screen (also opened straight from its
 * route, as a notification's run would) shows both diffs, the digests the store holds, the
 * command with its exit status and its output, every name escaped. The runs list's search
 * box finds the run by its answer and says when nothing matches.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { launchChromium, openDevice, saveScreenshot, type Device } from './support/chromium.js';
import { readStore, storeToolCalls } from './support/store-reader.js';
import { runCommand } from './support/turns.js';

/** A name that reads `notesdm.txt` backwards past the override in a careless view. */
const NOTES = 'notes\u202Etxt.md';
const NOTES_SHOWN = 'notes\\u{202E}txt.md';
const TASK = 'Write the notes and check a missing file';

let browser: Browser;
let app: AppHost;
let laptop: Device;
let runId: string;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({
    config: {
      policy: {
        tools: { write_file: 'allow', edit_file: 'allow' },
        commands: { allow: [['ls', '…']] },
      },
      prices: {
        'scripted-model': { inputPerMTok: 0.27, cachedInputPerMTok: 0.07, outputPerMTok: 1.1 },
      },
    },
  });
  laptop = await openDevice(browser, 'Changes laptop', { viewport: { width: 1280, height: 900 } });
  await pairDevice(laptop, app);
  app.model.push(
    toolCallTurn(
      [
        {
          id: 'w',
          name: 'write_file',
          arguments: JSON.stringify({ path: NOTES, content: 'one\ntwo\n', expectedSha256: null }),
        },
        {
          id: 'e',
          name: 'edit_file',
          arguments: JSON.stringify({
            path: 'README.md',
            oldText: 'for tests',
            newText: 'for the Changes view',
          }),
        },
      ],
      {
        usage: {
          prompt_tokens: 3000,
          completion_tokens: 120,
          prompt_cache_hit_tokens: 1800,
          completion_tokens_details: { reasoning_tokens: 20 },
        },
      },
    ),
    toolCallTurn([runCommand('c', 'ls no-such-file')], {
      usage: { prompt_tokens: 1500, completion_tokens: 60 },
    }),
    textTurn('Both files are written; the listing failed.', {
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    }),
  );
  runId = await submitTask(laptop.page, TASK);
  await visible(
    byTestId(laptop.page, 'run-screen', {
      'run-id': runId,
      state: 'succeeded',
      'session-idle': 'true',
    }),
  );
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

const WriteResult = z.object({
  data: z.object({ afterSha256: z.string(), beforeSha256: z.string().nullable() }),
});

describe('the Changes view', () => {
  it('shows the run’s usage and cost estimate, and counts its changes', async () => {
    const page = laptop.page;
    const usage = await visible(byTestId(page, 'run-usage'));
    await expect
      .poll(() => usage.textContent())
      .toBe(
        '4.5k in (1.8k cached) · 180 out · 20 reasoning · ≈ $0.001 (estimate from your configured prices)',
      );
    expect(await byTestId(page, 'run-cost').textContent()).toBe(
      '≈ $0.001 (estimate from your configured prices)',
    );
    const link = byTestId(page, 'run-changes');
    expect(await link.getAttribute('data-count')).toBe('3');
    expect(await link.textContent()).toBe('Changes (3)');
    // The write's summary names the file: escaped on its tool card too, not reordered.
    const card = byTestId(page, 'tool-card', { 'tool-name': 'write_file' });
    expect(await byTestId(card, 'tool-summary').textContent()).toContain(`created ${NOTES_SHOWN}`);
    await saveScreenshot(page, 'run-usage');
  });

  it('lists both files with their diffs and digests, and the command with its exit status', async () => {
    const page = laptop.page;
    await byTestId(page, 'run-changes').click();
    const screen = await visible(
      byTestId(page, 'changes-screen', { 'run-id': runId, loaded: 'true' }),
    );
    expect(page.url()).toContain(`/changes`);
    const files = byTestId(screen, 'changed-file');
    expect(
      await files.evaluateAll((all) => all.map((file) => file.getAttribute('data-path'))),
    ).toEqual([NOTES, 'README.md']);
    // The override is shown as its escape, not obeyed.
    expect(await files.nth(0).locator('h3').textContent()).toBe(NOTES_SHOWN);
    const diffs = byTestId(screen, 'change-diff');
    expect(await diffs.nth(0).textContent()).toContain('+one\n+two\n');
    expect(await diffs.nth(1).textContent()).toContain(
      '-# A workspace for tests\n+# A workspace for the Changes view\n',
    );
    expect(
      await byTestId(screen, 'file-write').evaluateAll((all) =>
        all.map((w) => w.getAttribute('data-action')),
      ),
    ).toEqual(['created', 'edited']);

    // The digests shown are the ones the store recorded for each write.
    const calls = storeToolCalls(app.dataDir, runId);
    const stored = readStore(app.dataDir, (db) =>
      z
        .array(z.object({ result_json: z.string() }))
        .parse(
          db
            .prepare(
              "SELECT result_json FROM tool_calls WHERE run_id = ? AND name != 'run_command' ORDER BY position",
            )
            .all(runId),
        )
        .map((row) => WriteResult.parse(JSON.parse(row.result_json)).data),
    );
    const shownDigests = await byTestId(screen, 'file-digests').allTextContents();
    expect(shownDigests[0]).toBe(`sha256 (new file) → ${stored[0]!.afterSha256.slice(0, 12)}`);
    expect(shownDigests[1]).toBe(
      `sha256 ${stored[1]!.beforeSha256!.slice(0, 12)} → ${stored[1]!.afterSha256.slice(0, 12)}`,
    );

    const command = byTestId(screen, 'changed-command');
    expect(await command.count()).toBe(1);
    const commandCall = calls.find((call) => call.name === 'run_command')!;
    expect(await command.getAttribute('data-tool-call-id')).toBe(commandCall.id);
    expect(await command.getAttribute('data-exit-code')).toBe('2');
    expect(await command.locator('pre.command').textContent()).toBe('ls no-such-file');
    expect(await byTestId(command, 'command-outcome').textContent()).toBe('Exit status 2.');
    await byTestId(command, 'command-output-load').click();
    const output = await visible(byTestId(command, 'command-output-full'));
    expect(await output.textContent()).toContain('no-such-file');
    await saveScreenshot(page, 'changes-view');
    expect(pageErrors(laptop)).toBe('');
  });

  it('opens from its route, as a notification’s run would', async () => {
    const page = laptop.page;
    await page.goto(
      `${app.origin}/#/run/${encodeURIComponent(app.hostId)}/${encodeURIComponent(runId)}/changes`,
    );
    const screen = await visible(
      byTestId(page, 'changes-screen', { 'run-id': runId, loaded: 'true' }),
    );
    expect(await byTestId(screen, 'changed-file').count()).toBe(2);
    await byTestId(screen, 'changes-back').click();
    await visible(byTestId(page, 'run-screen', { 'run-id': runId }));
  });
});

describe('run search', () => {
  it('finds the run by its answer, and says when nothing matches', async () => {
    const page = laptop.page;
    await byTestId(page, 'nav-runs').click();
    const box = await visible(page.locator('[data-search-input]'));
    await box.fill('LISTING FAILED');
    const row = await visible(byTestId(page, 'search-row', { 'run-id': runId }));
    expect(await row.textContent()).toContain(TASK);
    expect(await byTestId(page, 'search-row').count()).toBe(1);
    await box.fill('50% of nothing_here');
    await visible(byTestId(page, 'search-empty'));
    expect(await byTestId(page, 'search-row').count()).toBe(0);
    await box.fill('');
    await visible(byTestId(page, 'run-row', { 'run-id': runId }));
  });
});
