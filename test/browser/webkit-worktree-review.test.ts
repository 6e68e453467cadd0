/**
 * Issue 25 in WebKit, Safari's engine (WebKitGTK's MiniBrowser through WebKitWebDriver),
 * at phone size against the real host whose workspace is a real git repository: a task
 * sent from New task with "Work in its own branch" works on its branch; its run screen
 * shows the review (the branch's stat and the file's diff), and Merge, confirmed by a
 * second tap, brings the file into the user's checkout and says so. One flow: WebKit is
 * slow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, makeRepository } from '../support/git-workspace.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import type { AppHost } from './support/app-host.js';
import { WEBKIT_START_MS, type WebKit, type WebKitPage } from './support/webkit.js';
import { openWebKitApp, testId, type WebKitApp } from './support/webkit-app.js';

/** The flow's budget: many steps of up to WEBKIT_STEP_MS each under a loaded machine. */
const TEST_MS = 300_000;

let opened: WebKitApp;
let webkit: WebKit;
let app: AppHost;
let phone: WebKitPage;

beforeAll(async () => {
  opened = await openWebKitApp();
  ({ webkit, app } = opened);
  makeRepository(app.host.workspace, { 'notes.txt': 'one\ntwo\n' });
}, WEBKIT_START_MS * 2);

afterAll(async () => opened?.close());

describe('the review of a run in its own branch, in WebKit', () => {
  it(
    'submits in its own branch, shows the diff and merges it into the checkout',
    async () => {
      phone = await webkit.newPage();
      const [width] = await phone.setViewport(390, 844);
      expect(width).toBeLessThan(900);
      await phone.goto(`${app.localhostOrigin}/v1/health`);
      await phone.evaluate('localStorage.setItem("tether.deviceName", "WebKit Reviewer");');
      const offer = await app.host.offer(app.localhostOrigin);
      await phone.goto(offer.link);
      await phone.waitVisible(testId('pair-sas'));
      await phone.click(testId('pair-done'));
      await phone.waitVisible(testId('runs-screen'));

      app.model.push(
        toolCallTurn([
          {
            id: 'call_webkit_write',
            name: 'write_file',
            arguments: JSON.stringify({
              path: 'from-webkit.txt',
              content: 'merged from WebKit\n',
              expectedSha256: null,
            }),
          },
        ]),
        textTurn('Written.'),
      );
      await phone.click(testId('nav-submit'));
      await phone.type(testId('submit-text'), 'Write from-webkit.txt');
      await phone.click(testId('submit-own-branch'));
      expect(
        await phone.evaluate(
          'return document.querySelector(arguments[0]).checked;',
          testId('submit-own-branch'),
        ),
      ).toBe(true);
      await phone.click(testId('submit-button'));
      await phone.waitVisible(testId('run-screen', { state: 'succeeded' }));

      await phone.waitVisible(testId('worktree-review', { state: 'active' }));
      await phone.waitVisible(testId('review-file', { path: 'from-webkit.txt' }));
      expect(await phone.text(testId('review-stat'))).toBe('1 file changed, +1 −0');
      expect(await phone.text(testId('review-diff'))).toContain('+merged from WebKit');
      expect(existsSync(join(app.host.workspace, 'from-webkit.txt'))).toBe(false);
      await phone.screenshot('webkit-worktree-review-390x844');

      await phone.click(testId('review-merge'));
      await phone.click(testId('review-confirm', { action: 'merge' }));
      await phone.waitVisible(testId('review-outcome', { outcome: 'merged' }));
      const head = gitIn(app.host.workspace, 'rev-parse', 'HEAD');
      expect(await phone.text(testId('review-outcome'))).toBe(
        `Merged into main: fast-forward to ${head.slice(0, 12)}. Answered by this device.`,
      );
      expect(readFileSync(join(app.host.workspace, 'from-webkit.txt'), 'utf8')).toBe(
        'merged from WebKit\n',
      );
    },
    TEST_MS,
  );
});
