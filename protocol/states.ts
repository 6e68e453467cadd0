/**
 * Run and tool-call state machines as data (docs/protocol.md §7). The host guards every
 * state change with {@link canTransition}; terminal states are never rewritten.
 */
import { z } from 'zod/mini';

export const RUN_STATES = [
  'queued',
  'running',
  'waiting_for_approval',
  'cancelling',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
] as const;
export const RunState = z.enum(RUN_STATES);
export type RunState = z.infer<typeof RunState>;

export const TOOL_CALL_STATES = [
  'proposed',
  'waiting_for_approval',
  'ready',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'unknown',
] as const;
export const ToolCallState = z.enum(TOOL_CALL_STATES);
export type ToolCallState = z.infer<typeof ToolCallState>;

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
export const ApprovalState = z.enum(APPROVAL_STATES);
export type ApprovalState = z.infer<typeof ApprovalState>;

/** Allowed run transitions. `interrupted` is reached only by recovery after the host died. */
const RUN_TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  queued: ['running', 'cancelled'],
  running: ['waiting_for_approval', 'cancelling', 'succeeded', 'failed', 'interrupted'],
  waiting_for_approval: ['running', 'cancelling'],
  cancelling: ['cancelled', 'interrupted'],
  succeeded: [],
  failed: [],
  cancelled: [],
  interrupted: [],
};

/** Allowed tool-call transitions. `unknown` means it may have started and nobody knows. */
const TOOL_CALL_TRANSITIONS: Readonly<Record<ToolCallState, readonly ToolCallState[]>> = {
  proposed: ['waiting_for_approval', 'ready', 'failed', 'cancelled'],
  waiting_for_approval: ['ready', 'failed', 'cancelled'],
  // A ready call the policy in force refuses at execution fails, or asks, without running.
  ready: ['running', 'waiting_for_approval', 'failed', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled', 'unknown'],
  succeeded: [],
  failed: [],
  cancelled: [],
  unknown: [],
};

/** Allowed approval transitions: a pending approval is resolved once, and that is final. */
const APPROVAL_TRANSITIONS: Readonly<Record<ApprovalState, readonly ApprovalState[]>> = {
  pending: ['approved', 'denied', 'expired', 'cancelled'],
  approved: [],
  denied: [],
  expired: [],
  cancelled: [],
};

type Machine = 'run' | 'toolCall' | 'approval';

const TRANSITIONS: Readonly<Record<Machine, Readonly<Record<string, readonly string[]>>>> = {
  run: RUN_TRANSITIONS,
  toolCall: TOOL_CALL_TRANSITIONS,
  approval: APPROVAL_TRANSITIONS,
};

/** Whether `from → to` is a legal step of the given state machine. */
export function canTransition(machine: 'run', from: RunState, to: RunState): boolean;
export function canTransition(machine: 'toolCall', from: ToolCallState, to: ToolCallState): boolean;
export function canTransition(machine: 'approval', from: ApprovalState, to: ApprovalState): boolean;
export function canTransition(machine: Machine, from: string, to: string): boolean {
  return TRANSITIONS[machine][from]?.includes(to) ?? false;
}

export function isTerminalRunState(state: RunState): boolean {
  return RUN_TRANSITIONS[state].length === 0;
}

export function isTerminalToolCallState(state: ToolCallState): boolean {
  return TOOL_CALL_TRANSITIONS[state].length === 0;
}

/** Runs that hold their session: only one such run per session at a time. */
export function isActiveRunState(state: RunState): boolean {
  return state === 'running' || state === 'waiting_for_approval' || state === 'cancelling';
}
