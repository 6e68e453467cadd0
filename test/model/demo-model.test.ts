/**
 * `tether start --demo`: the scripted demo model through the real runtime. It lists the
 * sample workspace, finds and searches its files (no approval asked), reads README.md,
 * asks to run `wc -l README.md`, and after the approval answers with a summary of what it
 * saw.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHost, type RunningHost } from '../../host/cli/start-host.js';
import { pathWithForeignTether } from '../support/foreign-tether.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';
import { until } from '../support/wait.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let rootDir: TempDir;
let root: string;
let host: RunningHost;
let channel: RawChannel;
const lines: string[] = [];

const RunView = z.looseObject({
  run: z.looseObject({ state: z.string() }),
  messages: z.array(z.looseObject({ text: z.string() })),
  toolCalls: z.array(z.looseObject({ name: z.string(), state: z.string() })),
  approvals: z.array(
    z.looseObject({
      id: z.string(),
      toolCallId: z.string(),
      state: z.string(),
      inputDigest: z.string(),
      input: z.looseObject({ command: z.string() }),
    }),
  ),
});

function runView(runId: string, done: (view: z.infer<typeof RunView>) => boolean) {
  return until(
    `run ${runId} to get there`,
    async () => RunView.parse(await channel.call('run.get', { runId })),
    done,
    { timeout: 30_000, interval: 100 },
  );
}

beforeAll(async () => {
  rootDir = tempDir('tether-demo-', { realpath: false });
  root = rootDir.path;
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['PATH'] = pathWithForeignTether();
  process.env['TETHER_LOG_LEVEL'] = 'warn';
  host = await startHost(['--demo', '--data', join(root, 'data'), '--port', '0'], (line) =>
    lines.push(line),
  );
  const admin = z
    .object({ url: z.string(), token: z.string() })
    .parse(JSON.parse(readFileSync(join(root, 'data', 'admin.json'), 'utf8')));
  const offer = await fetch(`${admin.url}/admin/api/offers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const paired = await pairDevice(z.object({ link: z.string() }).parse(await offer.json()).link);
  channel = await RawChannel.open(paired.host);
});

afterAll(async () => {
  channel?.socket.socket.close();
  await host?.stop();
  rootDir.remove();
});

describe('the demo model', () => {
  it('says it is a demo on the start lines and in host.info, with its own sample workspace', async () => {
    expect(lines.join('\n')).toContain('model: tether-demo (demo model: scripted, not an AI');
    // The hint names this clone's bin/tether.js: the first `tether` on PATH is another.
    const bin = fileURLToPath(new URL('../../bin/tether.js', import.meta.url));
    expect(lines.join('\n')).toContain(`node '${bin}' pair --data '${join(root, 'data')}'`);
    const info = await channel.call('host.info');
    expect(info).toMatchObject({
      models: ['tether-demo'],
      model: 'tether-demo',
      modelNotice: 'demo model: scripted, not an AI',
      workspaces: [{ name: 'demo-workspace' }],
    });
  });

  it('lists, finds and searches unasked, reads README.md, waits for approval of wc -l, and summarises', async () => {
    const { runId } = z.object({ runId: z.string() }).parse(
      await channel.call('run.submit', {
        commandId: 'demo-test-run-00000001',
        input: { text: 'Show me around' },
      }),
    );
    const waiting = await runView(runId, (view) => view.run.state === 'waiting_for_approval');
    expect(waiting.toolCalls.map((call) => [call.name, call.state])).toEqual([
      ['list_directory', 'succeeded'],
      ['find_files', 'succeeded'],
      ['search_files', 'succeeded'],
      ['read_file', 'succeeded'],
      ['run_command', 'waiting_for_approval'],
    ]);
    // The host's own policy let the searches run: the only approval is the command's.
    expect(waiting.approvals.map((approval) => approval.input.command)).toEqual([
      'wc -l README.md',
    ]);
    expect(waiting.messages[0]?.text).toContain('Tether demo model: scripted, not an AI');
    const approval = waiting.approvals[0]!;
    expect(approval.input.command).toBe('wc -l README.md');
    await channel.call('approval.respond', {
      commandId: 'demo-test-approve-0001',
      approvalId: approval.id,
      toolCallId: approval.toolCallId,
      inputDigest: approval.inputDigest,
      decision: 'approve',
    });
    const done = await runView(
      runId,
      (view) => view.run.state !== 'waiting_for_approval' && view.run.state !== 'running',
    );
    expect(done.run.state).toBe('succeeded');
    const summary = done.messages.at(-1)?.text ?? '';
    expect(summary).toContain(
      'the workspace has 3 entries, 2 of them text files, and 2 lines mention "approv"',
    );
    expect(summary).toContain('README.md begins with "# Demo workspace"');
    expect(summary).toMatch(/`wc -l README\.md` printed "\d+ README\.md"/);
  });
});
