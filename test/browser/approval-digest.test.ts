/**
 * The app's `ApprovalCard` on a page built here with Vite and served on loopback: Approve
 * stays disabled when the input the card shows does not hash to the approval's
 * `inputDigest` (docs/protocol.md §6.5), and is enabled, and calls back, when it does.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest, type Approval } from '../../protocol/index.js';
import { byTestId, visible } from './support/app-page.js';
import { type ApprovalCardPage, serveApprovalCardPage } from './support/approval-card-page.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';

const WORKSPACE = '/Users/someone/project';

/** A pending `run_command` approval showing `shown`, with the digest of `hashed`. */
function commandApproval(shown: string, hashed: string): Approval {
  const input = (command: string) => ({ command });
  return {
    id: 'apr_test',
    toolCallId: 'tc_test',
    runId: 'run_test',
    state: 'pending',
    name: 'run_command',
    input: input(shown),
    workspace: WORKSPACE,
    inputDigest: digest({ tool: 'run_command', input: input(hashed), workspace: WORKSPACE }),
    preview: { kind: 'command', command: shown, cwd: WORKSPACE },
    reason: 'run_command asks first',
    expiresAt: Date.now() + 3_600_000,
    decidedBy: null,
  };
}

let cards: ApprovalCardPage;
let browser: Browser;
let device: Device;

beforeAll(async () => {
  cards = await serveApprovalCardPage({
    match: commandApproval('echo safe', 'echo safe'),
    mismatch: commandApproval('rm -rf ~', 'echo safe'),
  });
  browser = await launchChromium();
  device = await openDevice(browser, 'Card tester');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await cards?.close();
});

/** Opens the case `name` and resolves with its card, once shown pending. */
async function openCase(page: Page, name: string) {
  const card = await cards.open(page, name);
  expect(await card.getAttribute('data-state')).toBe('pending');
  return card;
}

const cardCalls = (page: Page) =>
  page.evaluate(() => (window as unknown as { cardCalls: { approve: number } }).cardCalls);

describe('ApprovalCard', () => {
  it('keeps Approve disabled when the shown input does not hash to the inputDigest', async () => {
    const card = await openCase(device.page, 'mismatch');
    expect(await byTestId(card, 'approval-command').textContent()).toContain('rm -rf ~');
    await visible(byTestId(card, 'approval-digest', { match: 'false' }));
    const approve = byTestId(card, 'approval-approve');
    expect(await approve.isDisabled()).toBe(true);
    await approve.click({ force: true });
    expect(await cardCalls(device.page)).toMatchObject({ approve: 0 });
    expect(await byTestId(card, 'approval-deny').isEnabled()).toBe(true);
  });

  it('enables Approve when the digest matches, and calls back on a tap', async () => {
    const card = await openCase(device.page, 'match');
    expect(await byTestId(card, 'approval-command').textContent()).toContain('echo safe');
    await visible(byTestId(card, 'approval-digest', { match: 'true' }));
    const approve = byTestId(card, 'approval-approve');
    expect(await approve.isEnabled()).toBe(true);
    await approve.click();
    expect(await cardCalls(device.page)).toMatchObject({ approve: 1 });
  });
});
