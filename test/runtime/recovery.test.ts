import { describe, expect, it } from 'vitest';
import { digest, type RunState, type ToolCallState } from '../../protocol/index.js';
import { newId, type Store } from '../../host/store/index.js';
import { commandId, startHarness } from './harness.js';

/** Writes a run (and a message with tool calls) in a given state, as a dead host left it. */
function leaveRun(store: Store, state: RunState, calls: ToolCallState[] = []): string {
  return store.write((tx) => {
    const sessionId = newId('ses');
    const runId = newId('run');
    const active = state === 'queued' ? null : runId;
    store.runs.insertSession({
      id: sessionId,
      title: state,
      workspace: '/w',
      createdAt: tx.at,
      activeRunId: active,
    });
    store.runs.insertRun({
      id: runId,
      sessionId,
      state,
      input: { text: state },
      model: 'scripted-model',
      createdAt: tx.at,
      startedAt: state === 'queued' ? null : tx.at,
      finishedAt: null,
      continuesRunId: null,
      error: null,
      commandId: commandId(),
      createdBy: 'test',
      idleAt: null,
    });
    if (calls.length === 0) return runId;
    const messageId = newId('msg');
    store.runs.insertMessage({
      id: messageId,
      runId,
      text: '',
      reasoning: null,
      finishReason: 'tool_calls',
      usage: null,
      createdAt: tx.at,
      provider: 'generic',
      native: {},
      toolCalls: calls.map((_, i) => ({
        id: `m${i}`,
        name: 'read_file',
        arguments: '{"path":"a"}',
      })),
    });
    calls.forEach((callState, position) => {
      const input = { path: 'a' };
      store.tools.insertToolCall({
        id: `tc_${runId}_${position}`,
        runId,
        name: 'read_file',
        input,
        inputDigest: digest({ tool: 'read_file', input, workspace: '/w' }),
        state: callState,
        startedAt: null,
        finishedAt: null,
        result: null,
        messageId,
        modelCallId: `m${position}`,
        position,
        attempt: callState === 'running' ? 1 : 0,
        createdAt: tx.at,
        modelContent: null,
        output: null,
        processGroup: null,
      });
    });
    return runId;
  });
}

describe('recovery at start', () => {
  it('settles each state where docs/architecture.md says, each change an event', async () => {
    await using harness = await startHarness({ start: false });
    const { store } = harness;
    const running = leaveRun(store, 'running', ['succeeded', 'running', 'ready']);
    const cancelling = leaveRun(store, 'cancelling', ['proposed']);
    const waiting = leaveRun(store, 'waiting_for_approval', ['waiting_for_approval']);
    const queued = leaveRun(store, 'queued');
    const finishedNotIdle = store.write((tx) => {
      const id = leaveRun(store, 'running');
      store.runs.updateRun(id, { state: 'succeeded', finishedAt: tx.at });
      return id;
    });
    harness.model.push(); // the queued run will ask the model: leave it to fail loudly
    await harness.restart({ limits: { maxActiveRuns: 0 } });

    const state = (runId: string) => harness.runtime.getRun(runId).run.state;
    const calls = (runId: string) =>
      harness.runtime.getRun(runId).toolCalls.map((call) => call.state);
    expect(state(running)).toBe('interrupted');
    expect(calls(running)).toEqual(['succeeded', 'unknown', 'cancelled']);
    expect(state(cancelling)).toBe('interrupted');
    expect(calls(cancelling)).toEqual(['cancelled']);
    expect(state(waiting)).toBe('waiting_for_approval');
    expect(calls(waiting)).toEqual(['waiting_for_approval']);
    expect(state(queued)).toBe('queued');

    expect(harness.typesOf(running)).toEqual([
      'tool.finished',
      'tool.finished',
      'run.finished',
      'session.idle',
    ]);
    const unknown = harness.events.find(
      (e) => e.type === 'tool.finished' && e.runId === running && e.payload.status === 'unknown',
    );
    expect(unknown?.toolCallId).toBe(`tc_${running}_1`);
    expect(harness.typesOf(finishedNotIdle)).toEqual(['session.idle']);
    expect(harness.typesOf(waiting)).toEqual([]);
    const started = harness.events.at(-1)!;
    expect(started.type).toBe('host.started');
    expect(started.payload).toEqual({
      instance: harness.runtime.instance,
      interruptedRuns: [running, cancelling],
    });
  });

  it('never re-runs an unknown tool call; reconcile records the verdict as a new event', async () => {
    await using harness = await startHarness({ start: false });
    const runId = leaveRun(harness.store, 'running', ['running']);
    await harness.restart();
    const call = harness.runtime.getRun(runId).toolCalls[0]!;
    expect(call.state).toBe('unknown');
    harness.runtime.reconcile(
      { commandId: commandId(), toolCallId: call.id, outcome: 'happened', note: 'saw it' },
      'dev',
    );
    const after = harness.runtime.getRun(runId).toolCalls[0]!;
    expect(after.state).toBe('unknown');
    expect(after.result).toMatchObject({
      reconciled: { outcome: 'happened', by: 'dev', note: 'saw it' },
    });
    expect(harness.events.at(-1)).toMatchObject({
      type: 'tool.reconciled',
      toolCallId: call.id,
      payload: { outcome: 'happened', by: 'dev', note: 'saw it' },
    });
    expect(harness.model.requests).toHaveLength(0);
  });

  it('starts queued runs left by a dead host', async () => {
    await using harness = await startHarness({ start: false });
    const queued = leaveRun(harness.store, 'queued');
    const { textTurn } = await import('../support/scripted-model-server.js');
    harness.model.push(textTurn('picked up'));
    await harness.restart();
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(queued).run.state).toBe('succeeded');
  });
});
