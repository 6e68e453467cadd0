/**
 * Sessions longer than the context (docs/sessions.md): a small `contextTokens`, a model that
 * answers from what it is sent (it calls a tool for each new task, then answers; a request
 * without tools is a summary request), and runs until the session has to be summarised.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { digest } from '../../protocol/index.js';
import type { ModelMessage, ModelRequest } from '../../host/model/index.js';
import { newId } from '../../host/store/index.js';
import type { ToolDefinition } from '../../host/tools/index.js';
import { defineTool } from '../../host/tools/testing.js';
import { fakeTextTurn, fakeToolCallTurn, type FakeTurn } from '../support/in-process-model.js';
import { commandId, startHarness, type Harness } from './harness.js';
import type { InProcessModel } from '../support/in-process-model.js';

const CONTEXT_TOKENS = 4000;
/** What a request may hold: CONTEXT_TOKENS less the answer's reserve (token-count.ts). */
const BUDGET_TOKENS = 3000;

/** A read-only tool with 1500 characters of output, numbered so each is recognisable. */
const dumpTool = defineTool({
  name: 'dump',
  description: 'prints a page',
  input: z.strictObject({ n: z.number() }),
  access: () => ({ kind: 'read' as const, path: '.' }),
  execute: (input) =>
    Promise.resolve({
      status: 'succeeded' as const,
      summary: 'dumped',
      content: `OUT-${input.n} ${'x'.repeat(1500)}`,
    }),
}) as ToolDefinition<unknown>;

/** A tool that asks first (not read-only) and answers with a large result. */
const noteTool = defineTool({
  name: 'note',
  description: 'writes a note',
  input: z.strictObject({ text: z.string() }),
  access: () => ({ kind: 'opaque' as const }),
  execute: () =>
    Promise.resolve({
      status: 'succeeded' as const,
      summary: 'noted',
      content: `NOTED ${'n'.repeat(6000)}`,
    }),
  preview: (input) =>
    Promise.resolve({ kind: 'command' as const, command: `note ${input.text}`, cwd: '.' }),
}) as ToolDefinition<unknown>;

const isSummaryRequest = (request: ModelRequest) => request.tools.length === 0;

/**
 * The scripted agent: a new task gets one tool call (`note` when the task says so, a
 * stalled answer for "stall", a plain answer for "chat"), a tool result gets an answer; a summary request gets
 * `SUMMARY#n`, or fails while `failures` says so.
 */
function agent(options: { summaryFailures?: number } = {}) {
  let failures = options.summaryFailures ?? 0;
  let summaries = 0;
  let calls = 0;
  return (request: ModelRequest): FakeTurn => {
    if (isSummaryRequest(request)) {
      if (failures > 0) {
        failures -= 1;
        return {
          events: [
            {
              type: 'failed',
              error: { class: 'server', message: 'summary refused (test)', retryable: false },
            },
          ],
        };
      }
      summaries += 1;
      return fakeTextTurn(`SUMMARY#${summaries}: the user asked for tasks; each was dumped.`);
    }
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return fakeTextTurn(`answer after ${last.content.slice(0, 12)}`);
    const task = last.role === 'user' ? last.content : '';
    if (task.startsWith('stall')) return { ...fakeTextTurn('never'), stallAfter: 0 };
    if (task.startsWith('chat')) return fakeTextTurn(`answer to ${task.slice(0, 8)}`);
    calls += 1;
    if (task.startsWith('note')) {
      return fakeToolCallTurn([{ id: `c${calls}`, name: 'note', arguments: '{"text":"hi"}' }]);
    }
    const n = Number(/^task (\d+)/.exec(task)?.[1] ?? 0);
    return fakeToolCallTurn([{ id: `c${calls}`, name: 'dump', arguments: `{"n":${n}}` }]);
  };
}

function start(answer: ReturnType<typeof agent>) {
  return startHarness({
    model: 'in-process',
    answer,
    runtime: { tools: [dumpTool, noteTool], limits: { contextTokens: CONTEXT_TOKENS } },
  });
}

/** Task `i`: 800 characters that no dropping can shorten. */
function task(i: number): string {
  return `task ${i} ${'y'.repeat(800)}`;
}

async function runTask(
  harness: Harness<InProcessModel>,
  text: string,
  sessionId?: string,
): Promise<{ runId: string; sessionId: string }> {
  const submitted = harness.runtime.submit(
    { commandId: commandId(), input: { text }, ...(sessionId === undefined ? {} : { sessionId }) },
    'dev',
  );
  await harness.runtime.whenIdle();
  return submitted;
}

/** `session.compacted` as the host writes it (its wire schema names no field). */
const Compacted = z.looseObject({
  summaryId: z.string(),
  coversSeq: z.tuple([z.number(), z.number()]),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  summary: z.string(),
  model: z.string(),
});

const compactions = (harness: Harness<InProcessModel>) =>
  harness.events
    .filter((event) => event.type === 'session.compacted')
    .map((event) => ({ ...event, payload: Compacted.parse(event.payload) }));

/** Every tool call has its result right after its message, and every result its call. */
function expectPaired(messages: readonly ModelMessage[]): void {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') {
      expect(open.has(message.toolCallId), `result ${message.toolCallId} has its call`).toBe(true);
      open.delete(message.toolCallId);
      continue;
    }
    expect([...open], 'calls answered before the next message').toEqual([]);
    if (message.role === 'assistant') for (const call of message.toolCalls) open.add(call.id);
  }
  expect([...open]).toEqual([]);
}

function requestChars(request: ModelRequest): number {
  return request.messages.reduce(
    (sum, message) =>
      sum +
      message.content.length +
      (message.role === 'assistant'
        ? message.toolCalls.reduce((calls, call) => calls + call.arguments.length, 0)
        : 0),
    0,
  );
}

describe('sessions longer than the context', () => {
  it('summarises once when the session outgrows the budget, keeping pairs, recent turns and the whole store', async () => {
    await using harness = await start(agent());
    const first = await runTask(harness, task(1));
    const { sessionId } = first;
    const runIds = [first.runId];
    for (let i = 2; compactions(harness).length === 0; i++) {
      expect(i, 'the session compacts within 12 runs').toBeLessThanOrEqual(12);
      runIds.push((await runTask(harness, task(i), sessionId)).runId);
    }
    const compactedIn = runIds.at(-1)!;
    expect(harness.runtime.getRun(compactedIn).run.state).toBe('succeeded');

    const [event] = compactions(harness);
    expect(event).toMatchObject({ sessionId, runId: compactedIn });
    const { coversSeq, tokensBefore, tokensAfter, summary } = event!.payload;
    expect(summary).toMatch(/^SUMMARY#\d+:/);
    expect(tokensBefore).toBeGreaterThan(BUDGET_TOKENS);
    expect(tokensAfter).toBeLessThanOrEqual(BUDGET_TOKENS);
    const stored = harness.store.summaries.latest(sessionId)!;
    expect(stored).toMatchObject({ id: event!.payload.summaryId, coversSeq, summary });
    // The range is the covered runs' events: it starts at the first run's run.queued.
    const firstQueued = harness.events.find(
      (e) => e.type === 'run.queued' && e.runId === first.runId,
    );
    expect(coversSeq[0]).toBe(firstQueued?.seq);
    const through = harness.events.filter((e) => e.runId === stored.throughRunId).at(-1);
    expect(coversSeq[1]).toBe(through?.seq);

    // The request after the summary: system, the summary framed as notes, recent turns.
    const requests = harness.model.requests;
    const firstSummary = requests.findIndex(isSummaryRequest);
    expect(requests[firstSummary]!.messages[1]?.content).toContain('task 1 ');
    const summaryRequests = requests.filter(isSummaryRequest).length;
    const next = requests[firstSummary + summaryRequests]!;
    expect(isSummaryRequest(next)).toBe(false);
    expect(next.messages[0]?.role).toBe('system');
    expect(next.messages[1]).toMatchObject({ role: 'user' });
    expect(next.messages[1]?.content).toContain('may be incomplete or wrong');
    expect(next.messages[1]?.content).toContain(summary);
    const inputs = next.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(inputs.some((text) => text.startsWith('task 1 '))).toBe(false);
    expect(inputs.at(-1)).toBe(task(runIds.length));
    expectPaired(next.messages);
    // This run's latest result is whole; the model has not read it yet.
    expect(next.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(next.messages.at(-1)?.content).toContain(`OUT-${runIds.length} xxx`);

    // A follow-up starts from the summary and does not summarise again.
    const followUp = await runTask(harness, task(99), sessionId);
    expect(harness.runtime.getRun(followUp.runId).run.state).toBe('succeeded');
    expect(compactions(harness)).toHaveLength(1);
    expect(requests.at(-1)?.messages[1]?.content).toContain(summary);
    expect(requests.filter(isSummaryRequest)).toHaveLength(summaryRequests);

    // The store still holds everything: every event, the first run's messages and output.
    const inStore = harness.store.events.after(0, { sessionId }, 100_000);
    expect(inStore.map((e) => e.seq)).toEqual(
      harness.events.filter((e) => e.sessionId === sessionId).map((e) => e.seq),
    );
    const firstRun = harness.runtime.getRun(first.runId);
    expect(firstRun.messages).toHaveLength(2);
    const output = harness.runtime.readOutput({
      toolCallId: firstRun.toolCalls[0]!.id,
      offset: 0,
      limit: 4096,
    });
    expect(output.text).toBe(`OUT-1 ${'x'.repeat(1500)}`);
    expect(harness.runtime.getRun(compactedIn).summaries).toEqual([
      expect.objectContaining({ id: stored.id, coversSeq, summary }),
    ]);
  });

  it('keeps an approved call with its result, and repeats unknown outcomes and cancellations under the summary', async () => {
    await using harness = await start(agent());
    const { sessionId } = await runTask(harness, task(1));

    // A cancelled run: its model request stalls until the cancel.
    const cancelled = harness.runtime.submit(
      { commandId: commandId(), sessionId, input: { text: `stall ${'s'.repeat(700)}` } },
      'dev',
    );
    await expect.poll(() => harness.model.requests.length).toBe(3);
    harness.runtime.cancel({ commandId: commandId(), runId: cancelled.runId }, 'dev');
    await harness.runtime.whenIdle();
    expect(harness.runtime.getRun(cancelled.runId).run.state).toBe('cancelled');

    // A run the host died in while its tool ran: recovery makes the call unknown.
    const interrupted = leaveRunningCall(harness, sessionId);
    await harness.restart();
    const unknownCall = harness.runtime.getRun(interrupted).toolCalls[0]!;
    expect(unknownCall.state).toBe('unknown');

    await runTask(harness, task(4), sessionId);
    expect(compactions(harness)).toHaveLength(0);

    // The approval run: parked, approved, and its large result forces a summary.
    const parked = harness.runtime.submit(
      { commandId: commandId(), sessionId, input: { text: 'note this down' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const waiting = harness.runtime.getRun(parked.runId);
    expect(waiting.run.state).toBe('waiting_for_approval');
    const approval = waiting.approvals[0]!;
    expect(compactions(harness)).toHaveLength(0);
    harness.runtime.respondApproval(
      {
        commandId: commandId(),
        approvalId: approval.id,
        toolCallId: approval.toolCallId,
        inputDigest: approval.inputDigest,
        decision: 'approve',
      },
      'dev',
    );
    await harness.runtime.whenIdle();
    const done = harness.runtime.getRun(parked.runId);
    expect(done.run.state).toBe('succeeded');
    expect(done.approvals[0]?.state).toBe('approved');
    expect(compactions(harness)).toHaveLength(1);
    expect(compactions(harness)[0]?.runId).toBe(parked.runId);

    const requests = harness.model.requests;
    const next = requests.findLast((request) => !isSummaryRequest(request))!;
    expect(next.messages[1]?.content).toContain(compactions(harness)[0]!.payload.summary);
    expectPaired(next.messages);
    const note = next.messages.find(
      (m): m is Extract<ModelMessage, { role: 'assistant' }> =>
        m.role === 'assistant' && m.toolCalls.some((call) => call.name === 'note'),
    );
    expect(note).toBeDefined();
    expect(next.messages.at(-1)?.content).toMatch(/^NOTED n+$/);
    const summary = next.messages[1]!.content;
    expect(summary).toContain('Kept by the host');
    expect(summary).toContain(
      `Tool call ${unknownCall.id}, read_file {"path":"a"}: [outcome unknown`,
    );
    expect(summary).toContain(`Run ${cancelled.runId} ("stall sss`);
    expect(summary).toContain('was cancelled by the user');
    expect(summary).toContain(`Run ${interrupted} ("left running") was interrupted`);
    // Nothing of those runs is sent but the host's own lines.
    expect(next.messages.some((m) => m.role === 'user' && m.content.startsWith('stall'))).toBe(
      false,
    );
  });

  it('a failing summary request stops the run with context_too_large, once; the next run summarises', async () => {
    await using harness = await start(agent({ summaryFailures: 1 }));
    const { sessionId } = await runTask(harness, task(1));
    let failed: string | undefined;
    for (let i = 2; failed === undefined; i++) {
      expect(i, 'the session needs a summary within 12 runs').toBeLessThanOrEqual(12);
      const { runId } = await runTask(harness, task(i), sessionId);
      if (harness.runtime.getRun(runId).run.state === 'failed') failed = runId;
    }
    const run = harness.runtime.getRun(failed).run;
    expect(run.error?.code).toBe('context_too_large');
    expect(run.error?.message).toContain('summary request failed (server): summary refused (test)');
    expect(run.error?.message).toContain('Start a new session, or raise model.contextTokens');
    // One summary request, then nothing: the oversized request was never sent.
    const requests = harness.model.requests;
    expect(requests.filter(isSummaryRequest)).toHaveLength(1);
    expect(isSummaryRequest(requests.at(-1)!)).toBe(true);
    expect(compactions(harness)).toHaveLength(0);
    expect(harness.store.summaries.latest(sessionId)).toBeUndefined();
    expect(harness.typesOf(failed).slice(-2)).toEqual(['run.finished', 'session.idle']);

    const again = await runTask(harness, task(50), sessionId);
    expect(harness.runtime.getRun(again.runId).run.state).toBe('succeeded');
    expect(compactions(harness)).toHaveLength(1);
    expect(requests.filter(isSummaryRequest).length).toBeGreaterThan(1);
  });

  it('a run alone larger than the context fails at once with context_too_large, nothing sent', async () => {
    await using harness = await start(agent());
    const { runId } = await runTask(harness, `task 1 ${'z'.repeat(20_000)}`);
    const run = harness.runtime.getRun(runId).run;
    expect(run.state).toBe('failed');
    expect(run.error?.code).toBe('context_too_large');
    expect(run.error?.message).toContain('this run alone is larger than the context');
    expect(harness.model.requests).toHaveLength(0);
  });

  it('a session of 200 runs keeps working with a small context, each request bounded', async () => {
    await using harness = await start(agent());
    const started = performance.now();
    const { sessionId, runId } = await runTask(harness, task(1));
    const states = [harness.runtime.getRun(runId).run.state];
    // Every fifth run calls a tool, the others are one answer: fewer commits, same growth.
    for (let i = 2; i <= 200; i++) {
      const text = i % 5 === 0 ? task(i) : `chat ${i} ${'y'.repeat(800)}`;
      const next = await runTask(harness, text, sessionId);
      states.push(harness.runtime.getRun(next.runId).run.state);
    }
    const elapsed = performance.now() - started;
    expect(states.filter((state) => state !== 'succeeded')).toEqual([]);
    const sizes = harness.model.requests.filter((r) => !isSummaryRequest(r)).map(requestChars);
    const made = compactions(harness);
    expect(made.length).toBeGreaterThan(5);
    // Each summary covers the session from its first run: one rolling summary.
    expect(new Set(made.map((event) => event.payload.coversSeq[0])).size).toBe(1);
    for (const event of made) expect(event.payload.tokensAfter).toBeLessThanOrEqual(BUDGET_TOKENS);
    // 3.5 characters a token: no request came near twice the budget's characters.
    expect(Math.max(...sizes)).toBeLessThan(BUDGET_TOKENS * 3.5);
    console.log(
      `200 runs: ${Math.round(elapsed)} ms, ${harness.model.requests.length} requests, ${made.length} summaries, request characters max ${Math.max(...sizes)}, last ${sizes.at(-1)}`,
    );
  });
});

/** A run of `sessionId` as a host that died while its read_file call ran left it. */
function leaveRunningCall(harness: Harness<InProcessModel>, sessionId: string): string {
  const { store } = harness;
  return store.write((tx) => {
    const runId = newId('run');
    store.runs.insertRun({
      id: runId,
      sessionId,
      state: 'running',
      input: { text: 'left running' },
      model: 'scripted-model',
      createdAt: tx.at,
      startedAt: tx.at,
      finishedAt: null,
      continuesRunId: null,
      error: null,
      commandId: commandId(),
      createdBy: 'test',
      idleAt: null,
    });
    store.runs.setActiveRun(sessionId, runId);
    tx.append({
      type: 'run.queued',
      sessionId,
      runId,
      payload: { input: { text: 'left running' }, model: null, commandId: 'c', by: 'test' },
    });
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
      toolCalls: [{ id: 'm0', name: 'read_file', arguments: '{"path":"a"}' }],
    });
    const input = { path: 'a' };
    store.tools.insertToolCall({
      id: `tc_${runId}_0`,
      runId,
      name: 'read_file',
      input,
      inputDigest: digest({ tool: 'read_file', input, workspace: harness.workspace }),
      state: 'running',
      startedAt: tx.at,
      finishedAt: null,
      result: null,
      messageId,
      modelCallId: 'm0',
      position: 0,
      attempt: 1,
      createdAt: tx.at,
      modelContent: null,
      output: null,
      processGroup: null,
    });
    return runId;
  });
}
