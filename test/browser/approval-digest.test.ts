/**
 * The app's `ApprovalCard` on a page built here with Vite and served on loopback: Approve
 * stays disabled when the input the card shows does not hash to the approval's
 * `inputDigest` (PROTOCOL.md 6.5), and is enabled, and calls back, when it does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import preact from '@preact/preset-vite';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest, type Approval } from '../../protocol/index.js';
import { byTestId, visible } from './support/app-page.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { serveFolder, type StaticServer } from './support/static-server.js';

const PAGE_SOURCE = new URL('./approval-card-page/', import.meta.url).pathname;
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

let out: string;
let server: StaticServer;
let browser: Browser;
let device: Device;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'tether-approval-card-page-'));
  await build({
    root: PAGE_SOURCE,
    configFile: false,
    logLevel: 'warn',
    plugins: [preact()],
    build: { outDir: out, emptyOutDir: true, target: 'es2022' },
  });
  const cases: Record<string, Approval> = {
    match: commandApproval('echo safe', 'echo safe'),
    mismatch: commandApproval('rm -rf ~', 'echo safe'),
  };
  writeFileSync(join(out, 'cases.json'), JSON.stringify(cases));
  server = await serveFolder(out);
  browser = await launchChromium();
  device = await openDevice(browser, 'Card tester');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

/** Opens the case `name` and resolves with its card, once shown. */
async function openCase(page: Page, name: string) {
  await page.goto(`${server.origin}/?case=${name}`);
  return visible(byTestId(page, 'approval-card', { state: 'pending' }));
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
