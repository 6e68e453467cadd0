/**
 * The app's pages driven through its DOM contract (remote/app/README.md): `data-testid`
 * names and `data-*` state attributes, nothing else of the app's markup.
 */
import type { Locator, Page } from 'playwright-core';
import type { AppHost } from './app-host.js';
import type { Device } from './chromium.js';

/** `[data-testid="<id>"]`, narrowed by `data-*` attributes, e.g. `{ state: 'pending' }`. */
export function byTestId(
  scope: Page | Locator,
  id: string,
  data: Record<string, string> = {},
): Locator {
  const attributes = Object.entries(data)
    .map(([name, value]) => `[data-${name}="${value}"]`)
    .join('');
  return scope.locator(`[data-testid="${id}"]${attributes}`);
}

/** Resolves once the element is visible (the context's default timeout applies). */
export async function visible(locator: Locator): Promise<Locator> {
  await locator.first().waitFor({ state: 'visible' });
  return locator;
}

/** What pairing showed: the SAS on the page and the one the host computed. */
export interface Paired {
  pageSas: string;
  hostSas: string | undefined;
}

/**
 * Pairs `device` by opening a fresh pairing link for `origin` (default 127.0.0.1), waits
 * for the SAS, continues with `pair-done` and waits for the runs screen.
 */
export async function pairDevice(
  device: Device,
  app: AppHost,
  origin: string = app.origin,
): Promise<Paired> {
  const offer = await app.host.offer(origin);
  await device.page.goto(offer.link);
  const sas = await visible(byTestId(device.page, 'pair-sas'));
  const pageSas = ((await sas.textContent()) ?? '').replace(/\D/g, '');
  const hostSas = await app.offerSas(offer.offerId);
  await byTestId(device.page, 'pair-done').click();
  await visible(byTestId(device.page, 'runs-screen'));
  return { pageSas, hostSas };
}

/**
 * Submits `text` from the submit screen and, when the host answers, resolves with the id of
 * the run screen the app navigated to.
 */
export async function submitTask(page: Page, text: string): Promise<string> {
  await openSubmitForm(page, text);
  await byTestId(page, 'submit-button').click();
  const screen = await visible(byTestId(page, 'run-screen'));
  await byTestId(page, 'run-task').filter({ hasText: text }).waitFor();
  const runId = await screen.getAttribute('data-run-id');
  if (runId === null || runId === '') throw new Error('the run screen has no data-run-id');
  return runId;
}

/** Opens the submit screen from the navigation and types `text`, without sending it. */
export async function openSubmitForm(page: Page, text: string): Promise<void> {
  await byTestId(page, 'nav-submit').click();
  await visible(byTestId(page, 'submit-screen'));
  await byTestId(page, 'submit-text').fill(text);
}

/** The `data-tool-call-id` of every tool card on the page, in page order. */
export async function toolCardIds(page: Page): Promise<string[]> {
  return byTestId(page, 'tool-card').evaluateAll((cards) =>
    cards.map((card) => card.getAttribute('data-tool-call-id') ?? ''),
  );
}

/** The page's errors, to append to a failing assertion's message. */
export function pageErrors(device: Device): string {
  return device.errors.length === 0 ? '' : `\npage errors:\n${device.errors.join('\n')}`;
}
