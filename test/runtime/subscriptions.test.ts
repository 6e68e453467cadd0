import { describe, expect, it } from 'vitest';
import type { Event } from '../../protocol/index.js';
import {
  fakeTextTurn,
  fakeToolCallTurn,
  type InProcessModel,
} from '../support/in-process-model.js';
import { until } from '../support/wait.js';
import { commandId, startHarness, type Harness } from './harness.js';

function scriptBusyRun(harness: Harness<InProcessModel>, turns: number): void {
  for (let i = 0; i < turns; i++) {
    harness.model.push({
      ...fakeToolCallTurn([{ id: `c${i}`, name: 'list_directory', arguments: '{"path":"src"}' }]),
      delayMs: 2,
    });
  }
  harness.model.push({ ...fakeTextTurn(['done ', 'now']), delayMs: 2 });
}

describe('subscriptions from a cursor', () => {
  it('replays from the cursor then goes live: exactly the committed events, in order, once', async () => {
    await using harness = await startHarness({ model: 'in-process' });
    scriptBusyRun(harness, 6);
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until(
      'two tool.finished',
      () =>
        harness.typesOf(runId).filter((t) => t === 'tool.finished').length >= 2 ? true : undefined,
      { interval: 2 },
    );
    const cursor = harness.events.at(-3)!.seq;

    const received: Event[] = [];
    const subscription = harness.runtime.subscribe({ afterSeq: cursor }, 'dev');
    expect(subscription).toMatchObject({ mode: 'replay', cursor });
    subscription.start((events) => received.push(...events));
    await harness.runtime.whenIdle();
    subscription.close();

    const expected = harness.store.events.after(cursor, {}, 100_000);
    expect(received.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
    expect(received).toEqual(expected);
    expect(received.at(-1)?.type).toBe('session.idle');
  });

  it('answers a snapshot with its cursor when asked without one, and misses nothing after it', async () => {
    await using harness = await startHarness({ model: 'in-process' });
    scriptBusyRun(harness, 5);
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await until(
      'a tool.finished',
      () => (harness.typesOf(runId).includes('tool.finished') ? true : undefined),
      { interval: 2 },
    );

    const subscription = harness.runtime.subscribe({ scope: { runId } }, 'dev');
    expect(subscription.mode).toBe('snapshot');
    const snapshot = subscription.snapshot as {
      cursor: number;
      run: { id: string };
      toolCalls: unknown[];
    };
    expect(snapshot.run.id).toBe(runId);
    expect(snapshot.cursor).toBe(subscription.cursor);
    const finishedInSnapshot = snapshot.toolCalls.length;
    const received: Event[] = [];
    // Delivery starts later than the subscribe answer; commits in between are kept.
    await new Promise((resolve) => setTimeout(resolve, 20));
    subscription.start((events) => received.push(...events));
    await harness.runtime.whenIdle();

    const expected = harness.store.events.after(subscription.cursor, { runId }, 100_000);
    expect(received).toEqual(expected);
    expect(received.every((event) => event.runId === runId)).toBe(true);
    const proposedLater = received.filter((e) => e.type === 'tool.proposed').length;
    expect(finishedInSnapshot + proposedLater).toBe(5);
  });

  it('falls back to a snapshot when the cursor is beyond the replay window or ahead of the head', async () => {
    await using harness = await startHarness({ model: 'in-process' });
    harness.model.push(fakeTextTurn('a'));
    harness.runtime.submit({ commandId: commandId(), input: { text: 'x' } }, 'dev');
    await harness.runtime.whenIdle();
    const head = harness.store.events.head();
    const ahead = harness.runtime.subscribe({ afterSeq: head + 100 }, 'dev');
    expect(ahead.mode).toBe('snapshot');
    expect(ahead.cursor).toBe(head);
    const overview = ahead.snapshot as {
      sessions: unknown[];
      runs: unknown[];
      pendingApprovals: unknown[];
    };
    expect(overview.sessions).toHaveLength(1);
    expect(overview.runs).toHaveLength(1);
    ahead.close();
  });
});
