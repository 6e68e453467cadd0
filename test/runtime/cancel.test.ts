import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelAdapter } from '../../host/model/index.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { defineTool } from '../../host/tools/testing.js';
import { fakeTextTurn, fakeToolCallTurn } from '../support/in-process-model.js';
import { until } from '../support/wait.js';
import { commandId, startHarness } from './harness.js';

/** A tool that runs until it is aborted, and says when it started. */
function blockingTool(started: () => void): ToolDefinition<unknown> {
  return defineTool({
    name: 'wait_forever',
    description: 'waits until cancelled',
    input: z.strictObject({}),
    access: () => ({ kind: 'read' as const, path: '.' }),
    execute: (_input, ctx) =>
      new Promise((resolve) => {
        started();
        ctx.signal.addEventListener('abort', () =>
          resolve({
            status: 'failed',
            summary: 'cancelled',
            content: '',
            error: { code: 'cancelled', message: 'aborted' },
          }),
        );
      }),
  });
}

describe('cancel', () => {
  it('while the model streams: aborts the request and ends cancelled, no tool', async () => {
    await using harness = await startHarness({ model: 'in-process' });
    harness.model.push({ ...fakeTextTurn(['a', 'b', 'c']), stallAfter: 2 });
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until('the model request to stream', () =>
      harness.typesOf(runId).includes('model.request') && harness.model.requests.length === 1
        ? true
        : undefined,
    );
    const result = harness.runtime.cancel({ commandId: commandId(), runId }, 'dev');
    expect(result).toEqual({ state: 'cancelling' });
    await harness.runtime.whenIdle();
    expect(harness.typesOf(runId)).toEqual([
      'run.queued',
      'run.started',
      'model.request',
      'run.cancel_requested',
      'run.finished',
      'session.idle',
    ]);
    expect(harness.runtime.getRun(runId).run.state).toBe('cancelled');
  });

  it('while a tool runs: aborts it and records it cancelled', async () => {
    let started = false;
    await using harness = await startHarness({
      model: 'in-process',
      runtime: { tools: [...readOnlyTools, blockingTool(() => (started = true))] },
    });
    harness.model.push(fakeToolCallTurn([{ id: 'w', name: 'wait_forever', arguments: '{}' }]));
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until('the tool to start', () => started || undefined);
    harness.runtime.cancel({ commandId: commandId(), runId }, 'dev');
    await harness.runtime.whenIdle();
    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('cancelled');
    expect(run.toolCalls[0]?.state).toBe('cancelled');
    expect(harness.typesOf(runId).slice(-5)).toEqual([
      'tool.started',
      'run.cancel_requested',
      'tool.finished',
      'run.finished',
      'session.idle',
    ]);
    expect(harness.model.requests).toHaveLength(1);
  });

  it('while queued: ends at once, never starts, and a cancel of a finished run answers its state', async () => {
    let started = false;
    await using harness = await startHarness({
      model: 'in-process',
      runtime: { tools: [blockingTool(() => (started = true))] },
    });
    harness.model.push(fakeToolCallTurn([{ id: 'w', name: 'wait_forever', arguments: '{}' }]));
    const first = harness.runtime.submit({ commandId: commandId(), input: { text: 'a' } }, 'dev');
    const second = harness.runtime.submit({ commandId: commandId(), input: { text: 'b' } }, 'dev');
    await until('the tool to start', () => started || undefined);
    expect(harness.runtime.getRun(second.runId).run.state).toBe('queued');
    expect(harness.runtime.cancel({ commandId: commandId(), runId: second.runId }, 'dev')).toEqual({
      state: 'cancelled',
    });
    expect(harness.typesOf(second.runId)).toEqual([
      'run.queued',
      'run.cancel_requested',
      'run.finished',
    ]);
    harness.runtime.cancel({ commandId: commandId(), runId: first.runId }, 'dev');
    await harness.runtime.whenIdle();
    expect(harness.runtime.cancel({ commandId: commandId(), runId: second.runId }, 'dev')).toEqual({
      state: 'cancelled',
    });
    expect(harness.runtime.getRun(second.runId).run.startedAt).toBeNull();
  });

  it('late deltas after cancel start no tool: the calls are recorded, then cancelled', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let executed = false;
    const stubborn: ModelAdapter = {
      provider: 'generic',
      async *stream(): AsyncIterable<ModelStreamEvent> {
        await gate; // ignores the abort: the provider answers anyway
        yield {
          type: 'completed',
          message: {
            text: '',
            toolCalls: [{ id: 'late', name: 'wait_forever', arguments: '{}' }],
            finishReason: 'tool_calls',
            native: {},
          },
        };
      },
    };
    await using harness = await startHarness({
      model: 'in-process',
      runtime: {
        model: { adapter: stubborn, name: 'm', available: ['m'] },
        tools: [blockingTool(() => (executed = true))],
      },
    });
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until('the model request', () =>
      harness.typesOf(runId).includes('model.request') ? true : undefined,
    );
    harness.runtime.cancel({ commandId: commandId(), runId }, 'dev');
    release();
    await harness.runtime.whenIdle();
    expect(executed).toBe(false);
    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('cancelled');
    expect(run.toolCalls.map((call) => [call.state, call.startedAt])).toEqual([
      ['cancelled', null],
    ]);
    expect(harness.typesOf(runId)).not.toContain('tool.started');
  });

  it('stops the host gracefully: active runs cancelled, host.stopping recorded', async () => {
    let started = false;
    await using harness = await startHarness({
      model: 'in-process',
      runtime: { tools: [blockingTool(() => (started = true))] },
    });
    harness.model.push(
      fakeToolCallTurn([{ id: 'w', name: 'wait_forever', arguments: '{}' }]),
      fakeTextTurn('x'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until('the tool to start', () => started || undefined);
    await harness.runtime.stop(5_000);
    expect(harness.runtime.getRun(runId).run.state).toBe('cancelled');
    expect(harness.events.at(-1)?.type).toBe('host.stopping');
  });

  it('ends a run past its wall time as failed, stopping the tool it was running', async () => {
    let started = false;
    await using harness = await startHarness({
      model: 'in-process',
      runtime: { tools: [blockingTool(() => (started = true))], limits: { runWallTimeMs: 100 } },
    });
    harness.model.push(fakeToolCallTurn([{ id: 'w', name: 'wait_forever', arguments: '{}' }]));
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    expect(started).toBe(true);
    const run = harness.runtime.getRun(runId);
    expect(run.run).toMatchObject({ state: 'failed', error: { code: 'wall_time_exceeded' } });
    expect(run.toolCalls[0]?.state).toBe('cancelled');
  });
});
