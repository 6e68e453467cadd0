/**
 * An agent's tool calls as the agent describes them (its `tool_call` and
 * `tool_call_update` notifications, and the tool call of a permission request), kept by
 * its own id, and the card's input made of one: exactly what the agent sent, or the
 * reason no card can show it faithfully.
 */
import type {
  RequestPermissionRequest,
  ToolCallContent,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { AgentToolInput } from '../../protocol/index.js';
import { CARD_MAX_CHARS } from './agent-limits.js';

/** A tool call's text the run keeps (its content as the agent reported it). */
const TOOL_TEXT_MAX_CHARS = 16_000;

/** What the agent said of one of its tool calls so far, by its own id. */
export interface AgentCall {
  title: string | null;
  kind: string | null;
  locations: { path: string; line?: number | null }[];
  rawInput: unknown;
  status: string | null;
  text: string;
  /** The Tether tool call, once there is one. */
  callId: string | null;
}

function textOf(content: readonly ToolCallContent[] | null | undefined): string {
  return (content ?? [])
    .map((item) => {
      if (item.type === 'content' && item.content.type === 'text') return item.content.text;
      if (item.type === 'diff') return `diff of ${item.path}`;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** A value as JSON would carry it (undefined fields gone), or undefined when it cannot be. */
function jsonValue(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** `known` (or a new call) with what `update` says of it. */
export function updatedCall(known: AgentCall | undefined, update: ToolCallUpdate): AgentCall {
  const call: AgentCall = known ?? {
    title: null,
    kind: null,
    locations: [],
    rawInput: undefined,
    status: null,
    text: '',
    callId: null,
  };
  if (typeof update.title === 'string') call.title = update.title;
  if (typeof update.kind === 'string') call.kind = update.kind;
  if (Array.isArray(update.locations)) {
    call.locations = update.locations.map((at) => ({ path: at.path, line: at.line ?? null }));
  }
  if (update.rawInput !== undefined) call.rawInput = update.rawInput;
  if (typeof update.status === 'string') call.status = update.status;
  const text = textOf(update.content);
  if (text !== '') call.text = text.slice(0, TOOL_TEXT_MAX_CHARS);
  return call;
}

/** The call a permission request shows: what it sent, over what the agent said before. */
export function permissionCall(
  toolCall: RequestPermissionRequest['toolCall'],
  known: AgentCall | undefined,
): AgentCall {
  return {
    title: toolCall.title ?? known?.title ?? null,
    kind: toolCall.kind ?? known?.kind ?? null,
    locations:
      toolCall.locations?.map((at) => ({ path: at.path, line: at.line ?? null })) ??
      known?.locations ??
      [],
    rawInput: toolCall.rawInput !== undefined ? toolCall.rawInput : known?.rawInput,
    status: known?.status ?? null,
    text: known?.text ?? '',
    callId: null,
  };
}

/** The card's input of an agent's tool call: exactly what the agent sent. */
export function cardInput(call: AgentCall): AgentToolInput {
  return {
    title: call.title ?? '',
    kind: call.kind ?? 'other',
    locations: call.locations,
    rawInput: jsonValue(call.rawInput) ?? null,
  };
}

/**
 * Why the card of `call` is more than the host keeps (its title, kind, locations and raw
 * input as JSON past {@link CARD_MAX_CHARS}), or null when it is not.
 */
export function oversizedCard(call: AgentCall): string | null {
  const size = JSON.stringify(cardInput(call)).length;
  if (size <= CARD_MAX_CHARS) return null;
  const title = (call.title ?? '').slice(0, 80);
  return `the tool call "${title}" is ${size} characters as a card, more than the ${CARD_MAX_CHARS} the host keeps of one`;
}

/**
 * Why no card can show the permission request of `call` faithfully, or null when one can.
 * `allowsOnce`: the request offers "allow once" (Tether answers for one call only).
 */
export function unfaithfulReason(call: AgentCall, allowsOnce: boolean): string | null {
  if (call.title === null || call.title === '') return 'it has no title';
  if (call.rawInput !== undefined && jsonValue(call.rawInput) === undefined) {
    return 'its raw input is not JSON';
  }
  if (!allowsOnce) return 'it offers no "allow once": Tether answers for one call only';
  return null;
}
