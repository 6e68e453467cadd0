/**
 * Issue 16 item 2 in Chromium against the real host: on the approval card of `ls -a`,
 * "Allow like this from now on…" shows the rule's words and what else it matches, and a
 * second tap adds the rule and approves; the next identical call runs without a card and
 * its tool card says "allowed by a rule you added on Test iPhone, <date>"; the Rules
 * screen (from the devices screen) lists the rule and removes it after a confirming tap,
 * and the same call asks again. The Tools screen, also from the devices screen, says where
 * each MCP server runs: in the sandbox, or outside it as a warning.
 */
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import {
  IPHONE,
  launchChromium,
  openDevice,
  saveScreenshot,
  type Device,
} from './support/chromium.js';
import { readStore } from './support/store-reader.js';
import { runCommand } from './support/turns.js';
import { until } from '../support/wait.js';

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  const scripted = fileURLToPath(new URL('../mcp/servers/scripted-mcp-server.js', import.meta.url));
  const checkout = fileURLToPath(new URL('../../', import.meta.url));
  app = await startAppHost({
    config: {
      mcp: {
        servers: {
          notes: { command: process.execPath, args: [scripted], readable: [checkout], network: [] },
          free: { command: process.execPath, args: [scripted], sandbox: false },
        },
      },
    },
  });
  phone = await openDevice(browser, 'Test iPhone', IPHONE);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

/** Submits a task whose model runs `ls -a` once, then says it is done. */
function runLs(id: string): Promise<string> {
  app.model.push(toolCallTurn([runCommand(id, 'ls -a')]), textTurn('Done.'));
  return submitTask(phone.page, `List the workspace (${id})`);
}

function ruleEvents(): string[] {
  return readStore(app.dataDir, (db) =>
    (
      db.prepare("SELECT type FROM events WHERE type LIKE 'policy.rule_%' ORDER BY seq").all() as {
        type: string;
      }[]
    ).map((row) => row.type),
  );
}

describe('allow like this from now on, from the phone', () => {
  it('adds the rule in two taps, the next identical call runs unasked, and the Rules screen removes it', async () => {
    await phone.page.goto(`${app.origin}/`);
    await pairDevice(phone, app);

    const first = await runLs('call_first');
    const card = byTestId(phone.page, 'approval-card', { state: 'pending' });
    await visible(card);
    await visible(byTestId(card, 'approval-digest', { match: 'true' }));
    await byTestId(card, 'approval-rule-open').click();
    const offer = await visible(byTestId(card, 'approval-rule'));
    expect(await byTestId(offer, 'approval-rule-words').innerText()).toBe('ls -a');
    expect(await byTestId(offer, 'approval-rule-matches').innerText()).toContain(
      'Only "ls -a", word for word',
    );
    // The first tap only shows the rule: nothing is added or approved yet.
    expect(ruleEvents()).toEqual([]);
    await saveScreenshot(phone.page, 'approval-rule-offer');
    await byTestId(offer, 'approval-rule-confirm').click();
    await visible(byTestId(phone.page, 'approval-card', { state: 'approved' }));
    await visible(byTestId(phone.page, 'run-screen', { 'run-id': first, 'session-idle': 'true' }));
    expect(ruleEvents()).toEqual(['policy.rule_added']);

    const second = await runLs('call_second');
    await visible(byTestId(phone.page, 'run-screen', { 'run-id': second, 'session-idle': 'true' }));
    const tool = byTestId(phone.page, 'tool-card', { state: 'succeeded' });
    const day = new Date().toISOString().slice(0, 10);
    expect(await byTestId(tool, 'tool-allowed-by').innerText(), pageErrors(phone)).toBe(
      `allowed by a rule you added on Test iPhone, ${day}`,
    );
    expect(await byTestId(phone.page, 'approval-card').count()).toBe(0);

    await byTestId(phone.page, 'nav-devices').click();
    await byTestId(phone.page, 'devices-rules').click();
    const row = byTestId(phone.page, 'rule-row', { source: 'app' });
    await visible(row);
    expect(await byTestId(row, 'rule-words').innerText()).toBe('ls -a');
    expect(await byTestId(row, 'rule-origin').innerText()).toContain(
      `added on Test iPhone, ${day}`,
    );
    await saveScreenshot(phone.page, 'rules-screen');
    await byTestId(row, 'rule-remove').click();
    expect(ruleEvents()).toEqual(['policy.rule_added']);
    await byTestId(row, 'rule-remove-confirm').click();
    await visible(byTestId(phone.page, 'rules-empty'));
    expect(ruleEvents()).toEqual(['policy.rule_added', 'policy.rule_removed']);

    await runLs('call_third');
    await visible(byTestId(phone.page, 'approval-card', { state: 'pending' }));
  });

  it('the Tools screen says where each MCP server runs', async () => {
    await byTestId(phone.page, 'nav-devices').click();
    await byTestId(phone.page, 'tools-link').click();
    const notes = byTestId(phone.page, 'mcp-server', { name: 'notes', state: 'connected' });
    const free = byTestId(phone.page, 'mcp-server', { name: 'free', state: 'connected' });
    // The servers may connect after the page first asked: Refresh asks again.
    await until('both servers connected on the Tools screen', async () => {
      await byTestId(phone.page, 'tools-refresh').click();
      return (await notes.count()) + (await free.count()) === 2 ? true : undefined;
    });
    expect(await byTestId(notes, 'mcp-server-sandbox').innerText()).toBe(
      'sandboxed: may change no files, no network, cannot read your secrets',
    );
    const outside = byTestId(free, 'mcp-server-sandbox', { contained: 'false' });
    expect(await outside.innerText()).toBe(
      'outside the sandbox: full access, because mcp.servers.free.sandbox is false',
    );
    await saveScreenshot(phone.page, 'tools-screen');
  });
});
