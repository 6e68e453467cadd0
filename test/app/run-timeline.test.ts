import { describe, expect, it } from 'vitest';
import type { Approval, Event, Message, ToolCall } from '../../protocol/index.js';
import { EMPTY_HOST_STATE } from '../../remote/client/testing.js';
import {
  groupApprovals,
  newestSteps,
  type TimelineItem,
  timelineItems,
} from '../../remote/app/src/logic/run-timeline.js';

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

const step = (id: string): TimelineItem =>
  id.startsWith('call')
    ? { kind: 'tool', call: call(id, null) }
    : { kind: 'message', message: message(id, 0) };
const stepIds = (items: readonly TimelineItem[]) =>
  items.map((item) => (item.kind === 'message' ? item.message.id : item.call.id));

describe('newestSteps', () => {
  const all = ['msg_a', 'call_x', 'msg_b', 'call_y', 'msg_c'].map(step);

  it('shows the newest `size` steps in order and counts the earlier ones hidden', () => {
    const { hidden, items } = newestSteps(all, 3);
    expect(hidden).toBe(2);
    expect(stepIds(items)).toEqual(['msg_b', 'call_y', 'msg_c']);
  });

  it('hides nothing when the run fits, and hands back the same list', () => {
    expect(newestSteps(all, 5)).toEqual({ hidden: 0, items: all });
    expect(newestSteps(all, 150).items).toBe(all);
    expect(newestSteps([], 150)).toEqual({ hidden: 0, items: [] });
  });
});

describe('groupApprovals', () => {
  const approval = (id: string, toolCallId: string) =>
    ({ id, toolCallId, runId: 'run_1' }) as unknown as Approval;
  const all = ['msg_a', 'call_x', 'call_y'].map(step);

  it("puts each approval under its call, in the order given (a call's retries too)", () => {
    const { byCall, loose } = groupApprovals(
      [approval('ap_1', 'call_y'), approval('ap_2', 'call_x'), approval('ap_3', 'call_y')],
      all,
    );
    expect([...byCall.keys()]).toEqual(['call_y', 'call_x']);
    expect(byCall.get('call_y')?.map((a) => a.id)).toEqual(['ap_1', 'ap_3']);
    expect(byCall.get('call_x')?.map((a) => a.id)).toEqual(['ap_2']);
    expect(loose).toEqual([]);
  });

  it('keeps apart, in order, the approvals whose call is none of the steps', () => {
    const { byCall, loose } = groupApprovals(
      [approval('ap_1', 'call_gone'), approval('ap_2', 'call_x'), approval('ap_3', 'call_new')],
      all,
    );
    expect(loose.map((a) => a.id)).toEqual(['ap_1', 'ap_3']);
    expect([...byCall.keys()]).toEqual(['call_x']);
  });

  it('groups by every step, hidden ones too: a hidden call takes its approvals with it', () => {
    const { hidden, items } = newestSteps(all, 1);
    expect(hidden).toBe(2);
    const { byCall, loose } = groupApprovals([approval('ap_1', 'call_x')], all);
    expect(stepIds(items)).not.toContain('call_x');
    expect(byCall.get('call_x')?.map((a) => a.id)).toEqual(['ap_1']);
    expect(loose).toEqual([]);
  });
});
