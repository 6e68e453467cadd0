/**
 * Issue 25 in the built app, headless Chromium, real host, a real git repository as its
 * workspace: New task's "Work in its own branch" shows the host's refusal while the
 * workspace is no repository, then sends the run to a worktree; when it ends, the runs
 * list and the Approvals tab say it is ready to review, and its run screen shows the
 * branch, the stat and each file's diff (a long line scrolling inside its card at
 * 390 px). Merge (a second tap) lands the file in the user's checkout; a conflict with the
 * checkout names the file and keeps the branch, then Discard (a second tap) removes it;
 * another device's answer shows on the screen that was about to answer; a run that
 * changed nothing says so and offers only Discard; a branch moved under its review is
 * refused as changed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, makeRepository } from '../support/git-workspace.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import {
  IPHONE,
  launchChromium,
  openDevice,
  saveScreenshot,
  type Device,
} from './support/chromium.js';

const LONG_LINE = `const greeting = '${'hello '.repeat(60).trim()}';`;

let browser: Browser;
let app: AppHost;
let phone: Device;
let ipad: Device;
let workspace: string;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  workspace = app.host.workspace;
  phone = await openDevice(browser, 'Review Phone', IPHONE);
  ipad = await openDevice(browser, 'Review iPad', { viewport: { width: 1180, height: 820 } });
  await pairDevice(phone, app);
  await pairDevice(ipad, app);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The model's next run writes `path` with `content`: a new file, or one whose content is
 * `before` (its sha256 given).
 */
function writes(path: string, content: string, before?: string): void {
  app.model.push(
    toolCallTurn([
      {
        id: `call_${path.replace(/\W/g, '')}_${Date.now()}`,
        name: 'write_file',
        arguments: JSON.stringify({ path, content, expectedSha256: before ?? null }),
      },
    ]),
    textTurn('Written.'),
  );
}

/**
 * Submits `text` from New task on `page` with "Work in its own branch" on, and resolves
 * with the run's id once its run screen shows it ended with its review ready.
 */
async function submitInOwnBranch(page: Page, text: string): Promise<string> {
  await openSubmitForm(page, text);
  const toggle = await visible(byTestId(page, 'submit-own-branch'));
  expect(await toggle.isChecked()).toBe(false);
  await toggle.check();
  await byTestId(page, 'submit-button').click();
  const screen = await visible(byTestId(page, 'run-screen'));
  await byTestId(page, 'run-task').filter({ hasText: text }).waitFor();
  const runId = (await screen.getAttribute('data-run-id')) ?? '';
  await visible(
    byTestId(page, 'run-screen', { 'run-id': runId, state: 'succeeded', 'session-idle': 'true' }),
  );
  return runId;
}

function openRun(page: Page, runId: string): Promise<unknown> {
  return page.goto(
    `${app.origin}/#/run/${encodeURIComponent(app.hostId)}/${encodeURIComponent(runId)}`,
  );
}

describe('the review of a run in its own branch', () => {
  it('shows the host’s refusal on the form while the workspace is no repository', async () => {
    const page = phone.page;
    await openSubmitForm(page, 'Work alone');
    await byTestId(page, 'submit-own-branch').check();
    await byTestId(page, 'submit-button').click();
    const error = await visible(byTestId(page, 'submit-error'));
    expect(await error.textContent()).toMatch(
      /is not a git repository, so a run cannot have its own worktree/,
    );
    await visible(byTestId(page, 'submit-screen'));
    await byTestId(page, 'nav-runs').click();
    makeRepository(workspace, { 'notes.txt': 'one\ntwo\n' });
  });

  it('submits in its own branch, shows it ready to review, its diff, and merges it into main', async () => {
    const page = phone.page;
    writes('hello.js', `${LONG_LINE}\nconsole.log(greeting);\n`);
    const runId = await submitInOwnBranch(page, 'Write hello.js');
    const branch = gitIn(workspace, 'branch', '--list', 'tether/*', '--format=%(refname:short)');
    expect(branch).toMatch(/^tether\//);
    // The user's checkout is untouched until the merge.
    expect(existsSync(join(workspace, 'hello.js'))).toBe(false);

    const review = await visible(byTestId(page, 'worktree-review', { branch, state: 'active' }));
    expect(await byTestId(review, 'review-stat').textContent()).toBe('1 file changed, +2 −0');
    expect(await byTestId(review, 'review-summary').textContent()).toContain('into main');
    const file = byTestId(review, 'review-file', { path: 'hello.js', status: 'added' });
    const diff = byTestId(file, 'review-diff');
    expect(await diff.textContent()).toContain('+console.log(greeting);');
    // The long line scrolls inside its card; the page itself does not scroll sideways.
    expect(await diff.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    // A file folds away under its line.
    await file.locator('summary').click();
    expect(await diff.isVisible()).toBe(false);
    await file.locator('summary').click();
    await saveScreenshot(page, 'worktree-review-390x844');

    // The away user finds it: the runs list and the Approvals tab say it is ready.
    await byTestId(page, 'nav-runs').click();
    const row = await visible(byTestId(page, 'run-row', { 'run-id': runId }));
    expect(await byTestId(row, 'run-review-ready').textContent()).toContain('ready to review');
    expect(await byTestId(page, 'approvals-count').textContent()).toBe('1');
    await byTestId(page, 'nav-approvals').click();
    await visible(byTestId(page, 'reviews-waiting'));
    await byTestId(page, 'review-row', { 'run-id': runId }).click();

    // Merge takes a second tap, then says what it did.
    await visible(byTestId(page, 'review-merge'));
    expect(await byTestId(page, 'review-merge').textContent()).toBe('Merge into main');
    await byTestId(page, 'review-merge').click();
    expect(existsSync(join(workspace, 'hello.js'))).toBe(false);
    await byTestId(page, 'review-confirm', { action: 'merge' }).click();
    const outcome = await visible(
      byTestId(page, 'review-outcome', { outcome: 'merged', how: 'fast_forward' }),
    );
    const head = gitIn(workspace, 'rev-parse', 'HEAD');
    expect(await outcome.textContent()).toBe(
      `Merged into main: fast-forward to ${head.slice(0, 12)}. Answered by this device.`,
    );
    expect(readFileSync(join(workspace, 'hello.js'), 'utf8')).toBe(
      `${LONG_LINE}\nconsole.log(greeting);\n`,
    );
    expect(gitIn(workspace, 'branch', '--list', 'tether/*')).toBe('');
    expect(await byTestId(page, 'review-merge').count()).toBe(0);
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'run-row', { 'run-id': runId }));
    expect(await byTestId(page, 'run-review-ready').count()).toBe(0);
    expect(await byTestId(page, 'approvals-count').textContent()).toBe('0');
    expect(pageErrors(phone)).toBe('');
  });

  it('names the conflicting file and keeps the branch; Discard then removes it', async () => {
    const page = phone.page;
    writes('notes.txt', 'one\nTWO by the run\n', sha256('one\ntwo\n'));
    const runId = await submitInOwnBranch(page, 'Change notes.txt');
    const branch = gitIn(workspace, 'branch', '--list', 'tether/*', '--format=%(refname:short)');
    // Meanwhile the user changed the same line on main.
    writeFileSync(join(workspace, 'notes.txt'), 'one\nTWO by the user\n');
    gitIn(workspace, 'commit', '--quiet', '-am', 'the user changes notes');
    const head = gitIn(workspace, 'rev-parse', 'HEAD');

    await openRun(page, runId);
    await byTestId(page, 'review-merge').click();
    await byTestId(page, 'review-confirm', { action: 'merge' }).click();
    const refusal = await visible(byTestId(page, 'review-refusal', { kind: 'conflict' }));
    expect(await refusal.textContent()).toContain('the branch stays');
    expect(await byTestId(refusal, 'review-conflicts').textContent()).toBe('notes.txt');
    expect(gitIn(workspace, 'rev-parse', 'HEAD')).toBe(head);
    expect(gitIn(workspace, 'status', '--porcelain')).toBe('');
    expect(gitIn(workspace, 'branch', '--list', branch)).not.toBe('');
    await saveScreenshot(page, 'worktree-review-conflict-390x844');

    // Discard asks a second tap too; "Not now" takes it back.
    await byTestId(page, 'review-discard').click();
    await byTestId(page, 'review-cancel').click();
    await byTestId(page, 'review-discard').click();
    await byTestId(page, 'review-confirm', { action: 'discard' }).click();
    const outcome = await visible(byTestId(page, 'review-outcome', { outcome: 'discarded' }));
    expect(await outcome.textContent()).toBe(
      `Discarded: ${branch} and its worktree are gone. Answered by this device.`,
    );
    expect(gitIn(workspace, 'branch', '--list', 'tether/*')).toBe('');
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('one\nTWO by the user\n');
  });

  it('shows another device’s answer on the screen that was about to answer', async () => {
    writes('later.txt', 'later\n');
    const runId = await submitInOwnBranch(phone.page, 'Write later.txt');
    const branch = gitIn(workspace, 'branch', '--list', 'tether/*', '--format=%(refname:short)');
    await openRun(ipad.page, runId);
    await visible(byTestId(ipad.page, 'two-panes'));
    await visible(byTestId(ipad.page, 'review-file', { path: 'later.txt' }));
    expect(await byTestId(ipad.page, 'review-stat').textContent()).toBe('1 file changed, +1 −0');
    await saveScreenshot(ipad.page, 'worktree-review-1180x820');
    await visible(byTestId(phone.page, 'review-keep'));

    await byTestId(ipad.page, 'review-keep').click();
    await visible(byTestId(ipad.page, 'review-outcome', { outcome: 'kept' }));
    const seen = await visible(byTestId(phone.page, 'review-outcome', { outcome: 'kept' }));
    expect(await seen.textContent()).toBe(
      `Kept: ${branch} stays in your repository; its worktree folder is removed. Answered by Review iPad.`,
    );
    expect(await byTestId(phone.page, 'review-keep').count()).toBe(0);
    expect(gitIn(workspace, 'branch', '--list', branch)).not.toBe('');
    expect(pageErrors(ipad)).toBe('');
  });

  it('says when a run changed nothing, offering only Discard', async () => {
    const page = phone.page;
    app.model.push(textTurn('Nothing needed changing.'));
    const runId = await submitInOwnBranch(page, 'Look, change nothing');
    await visible(byTestId(page, 'review-empty'));
    expect(await byTestId(page, 'review-stat').textContent()).toBe('0 files changed, +0 −0');
    expect(await byTestId(page, 'review-merge').count()).toBe(0);
    expect(await byTestId(page, 'review-keep').count()).toBe(0);
    await visible(byTestId(page, 'review-discard'));
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'run-row', { 'run-id': runId }));
    expect(await byTestId(page, 'run-review-ready').count()).toBe(0);
  });

  it('says the branch changed since the review when it moved under it, and merges nothing', async () => {
    const page = phone.page;
    writes('moved.txt', 'moved\n');
    await submitInOwnBranch(page, 'Write moved.txt');
    const branch = gitIn(workspace, 'branch', '--list', 'tether/*', '--format=%(refname:short)')
      .split('\n')
      .find((name) => gitIn(workspace, 'ls-tree', '--name-only', name).includes('moved.txt'))!;
    await visible(byTestId(page, 'review-file', { path: 'moved.txt' }));
    const head = gitIn(workspace, 'rev-parse', 'HEAD');
    // The branch moves by hand to another tree after the review was read.
    const moved = gitIn(workspace, 'commit-tree', 'HEAD^{tree}', '-p', branch, '-m', 'by hand');
    gitIn(workspace, 'update-ref', `refs/heads/${branch}`, moved);
    await byTestId(page, 'review-merge').click();
    await byTestId(page, 'review-confirm', { action: 'merge' }).click();
    const refusal = await visible(byTestId(page, 'review-refusal', { kind: 'changed' }));
    expect(await refusal.textContent()).toBe(
      'The branch changed since this review: here it is again. Read it, then answer.',
    );
    expect(gitIn(workspace, 'rev-parse', 'HEAD')).toBe(head);
    expect(existsSync(join(workspace, 'moved.txt'))).toBe(false);
  });
});
