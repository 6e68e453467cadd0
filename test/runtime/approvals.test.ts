import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TetherError, digest } from '../../protocol/index.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { defineTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness, type Harness } from './harness.js';

/** A tool with a side effect: appends a line to `marks.txt` in the workspace. */
const markTool = defineTool({
  name: 'mark',
  description: 'appends a line',
  input: z.strictObject({ line: z.string() }),
  access: () => ({ kind: 'opaque' as const }),
  execute: (input, ctx) => {
    appendFileSync(join(ctx.workspace, 'marks.txt'), input.line + '\n');
    return Promise.resolve({ status: 'succeeded' as const, summary: 'marked', content: 'ok' });
  },
  preview: (input) =>
    Promise.resolve({ kind: 'command' as const, command: `mark ${input.line}`, cwd: '.' }),
}) as ToolDefinition<unknown>;

const tools = [...readOnlyTools, markTool];

function marks(harness: Harness): string {
  try {
    return readFileSync(join(harness.workspace, 'marks.txt'), 'utf8');
  } catch {
    return '';
  }
}

async function parkedRun(harness: Harness): Promise<{
  runId: string;
  approvalId: string;
  toolCallId: string;
  inputDigest: string;
}> {
  harness.model.push(
    toolCallTurn([{ id: 'm', name: 'mark', arguments: '{"line":"hello"}' }]),
    textTurn('done'),
  );
  const { runId } = harness.runtime.submit(
    { commandId: commandId(), input: { text: 'mark it' } },
    'dev-a',
  );
  await harness.runtime.whenIdle();
  const run = harness.runtime.getRun(runId);
  expect(run.run.state).toBe('waiting_for_approval');
  const approval = run.approvals[0]!;
  return {
    runId,
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
  };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof TetherError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('approvals bound to the input', () => {
  it('approve: the tool runs once and the run goes on', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    expect(parked.inputDigest).toBe(
      digest({ tool: 'mark', input: { line: 'hello' }, workspace: harness.workspace }),
    );
    expect(marks(harness)).toBe('');
    const answer = harness.runtime.respondApproval(
      { commandId: commandId(), ...parked, decision: 'approve' },
      'dev-a',
    );
    expect(answer).toEqual({ status: 'approved' });
    await harness.runtime.whenIdle();
    expect(marks(harness)).toBe('hello\n');
    expect(harness.runtime.getRun(parked.runId).run.state).toBe('succeeded');
    expect(harness.typesOf(parked.runId)).toEqual([
      'run.queued',
      'run.started',
      'model.request',
      'message.completed',
      'tool.proposed',
      'tool.approval_requested',
      'tool.approval_resolved',
      'tool.started',
      'tool.finished',
      'model.request',
      'message.completed',
      'run.finished',
      'session.idle',
    ]);
  });

  it('deny: the model is told permission_denied and goes on without the tool', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    harness.runtime.respondApproval(
      { commandId: commandId(), ...parked, decision: 'deny', note: 'not now' },
      'dev-a',
    );
    await harness.runtime.whenIdle();
    expect(marks(harness)).toBe('');
    const run = harness.runtime.getRun(parked.runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.toolCalls[0]).toMatchObject({ state: 'failed', startedAt: null });
    const toolMessage = harness.model.chatBodies()[1]!.messages.find((m) => m.role === 'tool');
    expect(String(toolMessage?.['content'])).toMatch(/permission_denied.*not now/);
  });

  it('a wrong digest is digest_mismatch and leaves the approval pending', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    const wrong = digest({ tool: 'mark', input: { line: 'rm -rf' }, workspace: harness.workspace });
    expect(
      codeOf(() =>
        harness.runtime.respondApproval(
          { commandId: commandId(), ...parked, inputDigest: wrong, decision: 'approve' },
          'dev-a',
        ),
      ),
    ).toBe('digest_mismatch');
    expect(harness.runtime.getRun(parked.runId).approvals[0]?.state).toBe('pending');
    expect(marks(harness)).toBe('');
  });

  it('two answers race: the first wins, the second hears who decided what', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    harness.runtime.respondApproval(
      { commandId: commandId(), ...parked, decision: 'deny' },
      'dev-a',
    );
    let caught: unknown;
    try {
      harness.runtime.respondApproval(
        { commandId: commandId(), ...parked, decision: 'approve' },
        'dev-b',
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'approval_resolved',
      details: { decision: 'denied', by: 'dev-a' },
    });
    await harness.runtime.whenIdle();
    expect(marks(harness)).toBe('');
  });

  it('approve after cancel: approval_resolved, cancelled by cancel; nothing runs', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    expect(
      harness.runtime.cancel({ commandId: commandId(), runId: parked.runId }, 'dev-a'),
    ).toEqual({ state: 'cancelling' });
    expect(harness.runtime.getRun(parked.runId).run.state).toBe('cancelled');
    expect(
      codeOf(() =>
        harness.runtime.respondApproval(
          { commandId: commandId(), ...parked, decision: 'approve' },
          'dev-b',
        ),
      ),
    ).toBe('approval_resolved');
    await harness.runtime.whenIdle();
    expect(marks(harness)).toBe('');
    expect(harness.typesOf(parked.runId).slice(-5)).toEqual([
      'run.cancel_requested',
      'tool.approval_resolved',
      'tool.finished',
      'run.finished',
      'session.idle',
    ]);
  });

  it('approve after expiry: approval_expired; the expiry denied it and the run went on', async () => {
    await using harness = await startHarness({ runtime: { tools, limits: { approvalTtlMs: 50 } } });
    const parked = await parkedRun(harness);
    // A fixed wait on purpose: the answer must come after the 50 ms TTL, whoever expires it.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(
      codeOf(() =>
        harness.runtime.respondApproval(
          { commandId: commandId(), ...parked, decision: 'approve' },
          'dev-a',
        ),
      ),
    ).toBe('approval_expired');
    await harness.runtime.whenIdle();
    const resolved = harness.events.find(
      (e) => e.type === 'tool.approval_resolved' && e.runId === parked.runId,
    );
    expect(resolved?.payload).toMatchObject({ decision: 'denied', by: 'expiry' });
    expect(harness.runtime.getRun(parked.runId).run.state).toBe('succeeded');
    expect(marks(harness)).toBe('');
  });

  it('stays pending across a host restart; approved then, the run continues and the tool runs once', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    await harness.restart({ tools });
    expect(harness.runtime.getRun(parked.runId).run.state).toBe('waiting_for_approval');
    expect(harness.runtime.getRun(parked.runId).approvals[0]?.state).toBe('pending');
    harness.runtime.respondApproval(
      { commandId: commandId(), ...parked, decision: 'approve' },
      'dev-a',
    );
    await harness.runtime.whenIdle();
    expect(marks(harness)).toBe('hello\n');
    expect(harness.runtime.getRun(parked.runId).run.state).toBe('succeeded');
  });

  it('a parked run holds its session but not the host slot', async () => {
    await using harness = await startHarness({ runtime: { tools } });
    const parked = await parkedRun(harness);
    harness.model.push(textTurn('other session ran'));
    const other = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'elsewhere' } },
      'dev-a',
    );
    const same = harness.runtime.submit(
      {
        commandId: commandId(),
        sessionId: harness.runtime.getRun(parked.runId).run.sessionId,
        input: { text: 'later' },
      },
      'dev-a',
    );
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(other.runId).run.state).toBe('succeeded');
    expect(harness.runtime.getRun(same.runId).run.state).toBe('queued');
  });
});
