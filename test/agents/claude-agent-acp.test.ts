/**
 * Smoke test of the real Claude adapter (`@agentclientprotocol/claude-agent-acp`, formerly
 * `@zed-industries/claude-code-acp`) under a real host and its bubblewrap sandbox, with no
 * credentials: the host starts it, initialises, and the run fails saying why.
 *
 * The adapter is not a dependency of this repository (it brings a 320 MB binary and wants
 * Node 22+), so this runs only where TETHER_SMOKE_CLAUDE_ACP names its `dist/index.js`,
 * with TETHER_SMOKE_NODE a Node 22+ binary to run it (docs/agents.md, "Checks").
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const RunError = z.object({ code: z.string(), message: z.string() });
const adapter = process.env['TETHER_SMOKE_CLAUDE_ACP'];
const node = process.env['TETHER_SMOKE_NODE'] ?? process.execPath;

describe.skipIf(adapter === undefined)('the real Claude adapter, without credentials', () => {
  let host: FaultHost;
  beforeAll(async () => {
    const home = tempDir('tether-claude-');
    const claudeDir = join(home.path, '.claude');
    mkdirSync(claudeDir);
    host = await startFaultHost({
      config: {
        agents: {
          claude: {
            command: node,
            args: [adapter!],
            writable: [claudeDir],
            readable: [dirname(dirname(dirname(dirname(adapter!)))), dirname(dirname(node))],
          },
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await host?.host.stop();
    await host?.dispose();
  });

  it('starts it, initialises, and fails the run with its login error', async () => {
    const result = await host.channel.call('run.submit', {
      commandId: randomUUID(),
      agent: 'claude',
      input: { text: 'Say hello.' },
    });
    const runId = String(result['runId']);
    await until(
      'the run to end',
      () => (host.typesOf(runId).includes('session.idle') ? true : undefined),
      { timeout: 90_000 },
    );
    const row = host.query(
      (db) =>
        db.prepare('SELECT state, error_json FROM runs WHERE id = ?').get(runId) as {
          state: string;
          error_json: string | null;
        },
    );
    expect(row.state).toBe('failed');
    const error = RunError.parse(JSON.parse(row.error_json!));
    expect(error.code).toBe('agent_failed');
    expect(error.message).toMatch(
      /^the agent claude is not logged in \(Authentication required\)(; it offers: .+)?\. Log in to it on this machine/,
    );
    console.log(`the run's error: ${error.message}`);
  }, 120_000);
});
