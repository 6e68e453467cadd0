import { describe, expect, it } from 'vitest';
import { TetherError } from '../../protocol/index.js';
import { textTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof TetherError) return error.code;
    throw error;
  }
  throw new Error('expected a TetherError');
}

describe('commands are applied once per commandId', () => {
  it('returns the same run for the same command, before and after a store reopen', async () => {
    await using harness = await startHarness();
    harness.model.push(textTurn('done'));
    const id = commandId();
    const args = { commandId: id, input: { text: 'hello' } };
    const first = harness.runtime.submit(args, 'dev-a');
    const again = harness.runtime.submit(args, 'dev-a');
    expect(again).toEqual({ ...first, deduplicated: true });
    await harness.runtime.whenIdle();

    await harness.restart();
    const afterRestart = harness.runtime.submit(args, 'dev-a');
    expect(afterRestart).toEqual({ ...first, deduplicated: true });
    expect(harness.store.runs.listRuns({ limit: 10 })).toHaveLength(1);
    expect(harness.model.requests).toHaveLength(1);
  });

  it('refuses the same commandId with other args as command_conflict, also after a reopen', async () => {
    await using harness = await startHarness();
    harness.model.push(textTurn('done'));
    const id = commandId();
    harness.runtime.submit({ commandId: id, input: { text: 'hello' } }, 'dev-a');
    expect(
      codeOf(() => harness.runtime.submit({ commandId: id, input: { text: 'bye' } }, 'dev-a')),
    ).toBe('command_conflict');
    await harness.restart();
    expect(
      codeOf(() => harness.runtime.submit({ commandId: id, input: { text: 'bye' } }, 'dev-a')),
    ).toBe('command_conflict');
    expect(codeOf(() => harness.runtime.cancel({ commandId: id, runId: 'run_x' }, 'dev-a'))).toBe(
      'command_conflict',
    );
  });

  it('records nothing for a command that fails, so resending it fails the same way', async () => {
    await using harness = await startHarness();
    const args = { commandId: commandId(), workspace: '/not/allowed', input: { text: 'x' } };
    const before = harness.store.events.head();
    expect(codeOf(() => harness.runtime.submit(args, 'dev-a'))).toBe('workspace_denied');
    expect(codeOf(() => harness.runtime.submit(args, 'dev-a'))).toBe('workspace_denied');
    expect(harness.store.events.head()).toBe(before);
    expect(harness.store.commands.find(args.commandId)).toBeUndefined();
  });

  it('chooses the workspace by name or path and refuses unknown models', async () => {
    await using harness = await startHarness();
    harness.model.push(textTurn('a'), textTurn('b'));
    const byName = harness.runtime.submit(
      { commandId: commandId(), workspace: 'workspace', input: { text: 'a' } },
      'local',
    );
    const byPath = harness.runtime.submit(
      { commandId: commandId(), workspace: harness.workspace, input: { text: 'b' } },
      'local',
    );
    expect(harness.store.runs.getSession(byName.sessionId)?.workspace).toBe(harness.workspace);
    expect(harness.store.runs.getSession(byPath.sessionId)?.workspace).toBe(harness.workspace);
    expect(
      codeOf(() =>
        harness.runtime.submit(
          { commandId: commandId(), model: 'gpt-9', input: { text: 'c' } },
          'local',
        ),
      ),
    ).toBe('invalid_request');
  });

  it('continues an interrupted, failed or cancelled run in the same session, and nothing else', async () => {
    await using harness = await startHarness({ withModel: false });
    const { runId, sessionId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'a' } },
      'local',
    );
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(runId).run.state).toBe('failed');
    const next = harness.runtime.continueRun({ commandId: commandId(), runId }, 'local');
    await harness.runtime.whenIdle();
    const continued = harness.runtime.getRun(next.runId).run;
    expect(continued).toMatchObject({ sessionId, continuesRunId: runId });
    const queued = harness.events.find((e) => e.type === 'run.queued' && e.runId === next.runId);
    expect(queued?.payload).toMatchObject({ continuesRunId: runId, by: 'local' });

    harness.model.push(textTurn('ok'));
    await harness.restart({
      model: {
        adapter: (await import('../../host/model/index.js')).createModelAdapter({
          baseUrl: harness.model.baseUrl,
          provider: 'generic',
        }),
        name: 'scripted-model',
        available: ['scripted-model'],
      },
    });
    const ok = harness.runtime.submit(
      { commandId: commandId(), sessionId, input: { text: 'b' } },
      'local',
    );
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(ok.runId).run.state).toBe('succeeded');
    expect(
      codeOf(() =>
        harness.runtime.continueRun({ commandId: commandId(), runId: ok.runId }, 'local'),
      ),
    ).toBe('invalid_state');
    // The session is one conversation: the second run's request carries the first's input.
    const body = harness.model.chatBodies().at(-1)!;
    expect(body.messages.filter((m) => m.role === 'user').map((m) => m['content'])).toEqual([
      'a',
      'Continue the previous run from where it stopped.',
      'b',
    ]);
  });
});
