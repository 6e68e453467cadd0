/**
 * The bounds an agent's turn keeps, whatever the agent sends (a prompt-injected or hostile
 * agent process included): past one, the host refuses what it was sent (the permission
 * rejected, the run ended failed saying which bound), and never stores more than the
 * bound. Message text is cut, and the cut is said.
 */
import type { PlanEntry } from '@agentclientprotocol/sdk';

/** The characters of one message's text (and of its reasoning) the run keeps. */
const MESSAGE_MAX_CHARS = 1_000_000;
/** The tool calls one run of an agent may report or make (its own and its `fs/*` calls). */
export const TOOL_CALLS_MAX = 1_000;
/** The most one tool call's card holds: its title, kind, locations and raw input as JSON. */
export const CARD_MAX_CHARS = 256 * 1024;
/** A plan's entries, and the characters of each entry's text. */
const PLAN_ENTRIES_MAX = 200;
const PLAN_ENTRY_MAX_CHARS = 4_000;
/** Permission requests (and `fs/*` calls waiting on a card) one run may have waiting at once. */
export const WAITING_MAX = 8;

/** Why `entries` is more than a run keeps of a plan, or null when it is not. */
export function planProblem(entries: readonly PlanEntry[]): string | null {
  if (entries.length > PLAN_ENTRIES_MAX) {
    return `a plan of ${entries.length} entries, more than the ${PLAN_ENTRIES_MAX} the host keeps`;
  }
  const long = entries.find((entry) => entry.content.length > PLAN_ENTRY_MAX_CHARS);
  if (long !== undefined) {
    return `a plan entry of ${long.content.length} characters, more than the ${PLAN_ENTRY_MAX_CHARS} the host keeps`;
  }
  return null;
}

/** The part of `delta` that fits after `kept` characters: what is kept, and how much is cut. */
export function fitText(kept: number, delta: string): { text: string; cut: number } {
  const room = Math.max(0, MESSAGE_MAX_CHARS - kept);
  if (delta.length <= room) return { text: delta, cut: 0 };
  return { text: delta.slice(0, room), cut: delta.length - room };
}

/** What a message whose text was cut says of it, after the text kept. */
export function cutNote(cut: number): string {
  return `\n\n[the host cut ${cut} more characters of this message: it keeps at most ${MESSAGE_MAX_CHARS} characters of one]`;
}
