/**
 * A model exploring a workspace with find_files and search_files through the real runtime,
 * policy and scripted model server: no approval is asked, the model sees the results, and
 * a pattern that backtracks without end ends at the deadline while the host keeps
 * answering. The two have a run each: the ordinary searches keep the default deadline, so
 * a busy machine cannot make them hit the short one the runaway pattern is given.
 */
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { compileReadProtection, decidePolicy } from '../../host/policy/testing.js';
import { readOnlyTools } from '../../host/tools/index.js';
import { createSearchTools } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness, type Harness } from './harness.js';
import { SANDBOXED } from '../support/sandbox.js';

const policy = PolicyConfig.parse({});
const searchTools = (deadlineMs?: number) =>
  createSearchTools({
    protectedPaths: (workspace) => compileReadProtection([], workspace, homedir()),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  });

/** The tool results the model was sent in its second request. */
function toolResultsSeen(harness: Harness): string[] {
  return harness.model
    .chatBodies()[1]!
    .messages.flatMap((message) => (message.role === 'tool' ? [String(message['content'])] : []));
}

describe('the search tools in a run', () => {
  it('run unasked and hand the model their results', async () => {
    // The default deadline: an ordinary search must not race a short one on a busy machine.
    await using harness = await startHarness({
      runtime: {
        tools: [...readOnlyTools, ...searchTools()],
        policy: (call, workspace) =>
          decidePolicy(call, { workspace, policy, homedir: homedir(), sandbox: SANDBOXED }),
      },
    });
    writeFileSync(join(harness.workspace, '.env'), 'console=secret\n');
    writeFileSync(join(harness.workspace, 'src', 'other.ts'), 'export const other = 1;\n');
    harness.model.push(
      toolCallTurn([
        { id: 'find', name: 'find_files', arguments: '{"glob":"*.ts"}' },
        { id: 'search', name: 'search_files', arguments: '{"pattern":"console"}' },
      ]),
      textTurn('explored'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'explore' } },
      'dev',
    );
    await harness.runtime.whenIdle();

    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.approvals).toEqual([]);
    expect(run.toolCalls.map((call) => [call.name, call.state])).toEqual([
      ['find_files', 'succeeded'],
      ['search_files', 'succeeded'],
    ]);
    const seen = toolResultsSeen(harness);
    expect(seen[0]).toBe(
      'find_files "*.ts" in .: 2 files match (3 files in 2 folders looked at)\nsrc/main.ts\nsrc/other.ts\nskipped: 1 protected',
    );
    expect(seen[1]).toMatch(/^search_files \/console\/i in \.: 1 matching line in 1 file;/);
    expect(seen[1]).toContain('\nsrc/main.ts:1: console.log("hi");\n');
    expect(seen[1]).not.toContain('secret');
  });

  it('stop a runaway pattern at the deadline while the host keeps answering', async () => {
    await using harness = await startHarness({
      runtime: {
        tools: [...readOnlyTools, ...searchTools(2_000)],
        policy: (call, workspace) =>
          decidePolicy(call, { workspace, policy, homedir: homedir(), sandbox: SANDBOXED }),
      },
    });
    writeFileSync(join(harness.workspace, 'src', 'evil.ts'), `${'a'.repeat(40)}!\n`);
    harness.model.push(
      toolCallTurn([
        { id: 'evil', name: 'search_files', arguments: '{"pattern":"^(a+)+$","path":"src"}' },
      ]),
      textTurn('explored'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'explore' } },
      'dev',
    );
    // While the runaway pattern holds its thread, the host's event loop answers queries.
    let answered = 0;
    const asking = setInterval(() => {
      harness.runtime.getRun(runId);
      answered += 1;
    }, 20);
    await harness.runtime.whenIdle();
    clearInterval(asking);

    expect(harness.runtime.getRun(runId).toolCalls.map((call) => call.state)).toEqual([
      'succeeded',
    ]);
    expect(answered).toBeGreaterThan(10);
    expect(toolResultsSeen(harness)[0]).toContain(
      '\nINCOMPLETE: stopped at the 2000 ms deadline while matching src/evil.ts;',
    );
  });

  it('show the folder they would read on the card when the policy asks', async () => {
    const asking = PolicyConfig.parse({ tools: { search_files: 'ask' } });
    await using harness = await startHarness({
      runtime: {
        tools: [...readOnlyTools, ...searchTools()],
        policy: (call, workspace) =>
          decidePolicy(call, {
            workspace,
            policy: asking,
            homedir: homedir(),
            sandbox: SANDBOXED,
          }),
      },
    });
    harness.model.push(
      toolCallTurn([{ id: 's', name: 'search_files', arguments: '{"pattern":"x","path":"src"}' }]),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'search' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(runId).approvals[0]?.preview).toMatchObject({
      kind: 'path',
      path: join(harness.workspace, 'src'),
      access: 'read',
    });
  });
});
