/**
 * A page with one app `ApprovalCard` (and the app's styles), built here with Vite into a
 * temp folder and served on loopback: `?case=NAME` renders that crafted approval from the
 * cases written beside it, and `window.cardCalls` counts the Approve and Deny callbacks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import preact from '@preact/preset-vite';
import type { Locator, Page } from 'playwright-core';
import { build } from 'vite';
import type { Approval } from '../../../protocol/index.js';
import { byTestId, visible } from './app-page.js';
import { serveFolder } from './static-server.js';

const PAGE_SOURCE = new URL('../approval-card-page/', import.meta.url).pathname;

/** The served page. */
export interface ApprovalCardPage {
  /** Opens the case `name` and resolves with its card, once shown. */
  open(page: Page, name: string): Promise<Locator>;
  close(): Promise<void>;
}

/** Builds and serves the page with `cases`. */
export async function serveApprovalCardPage(
  cases: Record<string, Approval>,
): Promise<ApprovalCardPage> {
  const out = mkdtempSync(join(tmpdir(), 'tether-approval-card-page-'));
  await build({
    root: PAGE_SOURCE,
    configFile: false,
    logLevel: 'warn',
    plugins: [preact()],
    build: { outDir: out, emptyOutDir: true, target: 'es2022' },
  });
  writeFileSync(join(out, 'cases.json'), JSON.stringify(cases));
  const server = await serveFolder(out);
  return {
    async open(page, name) {
      await page.goto(`${server.origin}/?case=${name}`);
      return visible(byTestId(page, 'approval-card'));
    },
    async close() {
      await server.close();
      rmSync(out, { recursive: true, force: true });
    },
  };
}
