/**
 * What the run screen lists: the run's messages and tool calls in the order they happened,
 * how many of the newest it shows, and where each approval goes among them.
 */
import type { Approval, Event, Message, ToolCall } from '#protocol';
import { type HostState, toolCallsOf } from '#client';

/** One step of a run: a message or a tool call. */
export type TimelineItem = { kind: 'message'; message: Message } | { kind: 'tool'; call: ToolCall };

/** Steps (messages and tool calls) a run screen shows at first, and how many more a tap adds. */
export const RUN_WINDOW = 150;
export const RUN_WINDOW_STEP = 500;

/**
 * Messages and tool calls in the order they happened: by the time of their first event
 * when the timeline has it, else by the records' own times.
 */
export function timelineItems(
  state: HostState,
  runId: string,
  timeline: readonly Event[],
): TimelineItem[] {
  const firstSeen = new Map<string, number>();
  for (const event of timeline) {
    const key =
      event.type === 'message.completed'
        ? event.payload.messageId
        : event.type === 'tool.proposed'
          ? event.toolCallId
          : null;
    if (key !== null && !firstSeen.has(key)) firstSeen.set(key, event.seq);
  }
  const keyed = [
    ...(state.messages[runId] ?? []).map((message) => ({
      item: { kind: 'message' as const, message },
      seq: firstSeen.get(message.id),
      at: message.createdAt,
      rank: 0,
    })),
    ...toolCallsOf(state, runId).map((call) => ({
      item: { kind: 'tool' as const, call },
      seq: firstSeen.get(call.id),
      at: call.startedAt ?? call.finishedAt ?? Number.MAX_SAFE_INTEGER,
      rank: 1,
    })),
  ];
  return keyed
    .sort((a, b) =>
      a.seq !== undefined && b.seq !== undefined ? a.seq - b.seq : a.at - b.at || a.rank - b.rank,
    )
    .map((entry) => entry.item);
}

/**
 * The newest `size` of `all` (a long run shows a screenful of steps, earlier ones on
 * demand), and how many earlier ones that hides.
 */
export function newestSteps(
  all: readonly TimelineItem[],
  size: number,
): { hidden: number; items: readonly TimelineItem[] } {
  const hidden = Math.max(0, all.length - size);
  return { hidden, items: hidden === 0 ? all : all.slice(hidden) };
}

/**
 * A run's approvals by tool call, in their order, for each card to look up its own; and
 * those whose call is none of the run's steps, shown on their own after them (an approval
 * of a hidden step stays hidden with it).
 */
export function groupApprovals(
  approvals: readonly Approval[],
  all: readonly TimelineItem[],
): { byCall: ReadonlyMap<string, readonly Approval[]>; loose: readonly Approval[] } {
  const calls = new Set(all.flatMap((item) => (item.kind === 'tool' ? [item.call.id] : [])));
  const byCall = new Map<string, Approval[]>();
  const loose: Approval[] = [];
  for (const approval of approvals) {
    if (!calls.has(approval.toolCallId)) {
      loose.push(approval);
      continue;
    }
    const list = byCall.get(approval.toolCallId);
    if (list === undefined) byCall.set(approval.toolCallId, [approval]);
    else list.push(approval);
  }
  return { byCall, loose };
}
