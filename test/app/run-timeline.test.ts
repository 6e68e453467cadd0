import { describe, expect, it } from 'vitest';
import type { Event, Message, ToolCall } from '../../protocol/index.js';
import { EMPTY_HOST_STATE } from '../../remote/client/testing.js';
import { timelineItems } from '../../remote/app/src/logic/run-timeline.js';

function message(id: string, createdAt: number): Message {
  return { id, text: id, reasoning: null, createdAt } as unknown as Message;
}

function call(id: string, startedAt: number | null): ToolCall {
  return { id, runId: 'run_1', startedAt, finishedAt: null } as unknown as ToolCall;
}

function seen(seq: number, type: Event['type'], id: string): Event {
  return (type === 'message.completed'
    ? { seq, type, runId: 'run_1', payload: { messageId: id } }
    : { seq, type, runId: 'run_1', toolCallId: id, payload: {} }) as unknown as Event;
}

describe('timelineItems', () => {
  const state = {
    ...EMPTY_HOST_STATE,
    messages: { run_1: [message('msg_a', 10), message('msg_b', 30)] },
    toolCalls: { call_x: call('call_x', 20), call_y: call('call_y', null) },
  };
  const ids = (timeline: readonly Event[]) =>
    timelineItems(state, 'run_1', timeline).map((item) =>
      item.kind === 'message' ? item.message.id : item.call.id,
    );

  it('orders by the seq of each first event when the timeline has them', () => {
    expect(
      ids([
        seen(4, 'tool.proposed', 'call_y'),
        seen(5, 'message.completed', 'msg_b'),
        seen(6, 'tool.proposed', 'call_x'),
        seen(7, 'message.completed', 'msg_a'),
      ]),
    ).toEqual(['call_y', 'msg_b', 'call_x', 'msg_a']);
  });

  it('orders by the records own times without a timeline, calls never started last', () => {
    expect(ids([])).toEqual(['msg_a', 'call_x', 'msg_b', 'call_y']);
  });
});
