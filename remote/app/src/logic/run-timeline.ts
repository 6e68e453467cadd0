/**
 * What the run screen lists: the run's messages and tool calls in the order they happened,
 * and how many of the newest it shows.
 */
import type { Event, Message, ToolCall } from '#protocol';
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
