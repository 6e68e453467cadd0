import { describe, expect, it } from 'vitest';
import {
  canTransition,
  isTerminalRunState,
  isTerminalToolCallState,
} from '../../protocol/index.js';
import {
  APPROVAL_STATES,
  MODEL_FAILURE_CODES,
  RUN_FAILURE_CODES,
  RUN_STATES,
  TOOL_CALL_STATES,
} from '../../protocol/testing.js';

describe('run state machine (docs/protocol.md §7)', () => {
  const allowed = new Set([
    'queued>running',
    'queued>cancelled',
    'running>waiting_for_approval',
    'waiting_for_approval>running',
    'running>cancelling',
    'waiting_for_approval>cancelling',
    'cancelling>cancelled',
    'running>succeeded',
    'running>failed',
    'running>interrupted',
    'cancelling>interrupted',
  ]);

  it('allows exactly the transitions of the table', () => {
    for (const from of RUN_STATES) {
      for (const to of RUN_STATES) {
        expect(canTransition('run', from, to), `${from} → ${to}`).toBe(
          allowed.has(`${from}>${to}`),
        );
      }
    }
  });

  it('has four terminal states that are never left', () => {
    expect(RUN_STATES.filter(isTerminalRunState)).toEqual([
      'succeeded',
      'failed',
      'cancelled',
      'interrupted',
    ]);
  });
});

describe('tool-call state machine (docs/protocol.md §7)', () => {
  const allowed = new Set([
    'proposed>waiting_for_approval',
    'waiting_for_approval>ready',
    'ready>running',
    'proposed>ready',
    'proposed>failed',
    'waiting_for_approval>failed',
    'running>succeeded',
    'running>failed',
    'running>cancelled',
    'running>unknown',
    'proposed>cancelled',
    'waiting_for_approval>cancelled',
    'ready>cancelled',
    // Decided again at execution: the policy in force refuses, or asks with no approval.
    'ready>failed',
    'ready>waiting_for_approval',
  ]);

  it('allows exactly the transitions of the table', () => {
    for (const from of TOOL_CALL_STATES) {
      for (const to of TOOL_CALL_STATES) {
        expect(canTransition('toolCall', from, to), `${from} → ${to}`).toBe(
          allowed.has(`${from}>${to}`),
        );
      }
    }
  });

  it('never re-runs: unknown and the other outcomes are terminal', () => {
    expect(TOOL_CALL_STATES.filter(isTerminalToolCallState)).toEqual([
      'succeeded',
      'failed',
      'cancelled',
      'unknown',
    ]);
  });
});

describe('approval state machine (docs/protocol.md §6.5)', () => {
  it('resolves a pending approval once, and every resolution is final', () => {
    for (const from of APPROVAL_STATES) {
      for (const to of APPROVAL_STATES) {
        const allowed = from === 'pending' && to !== 'pending';
        expect(canTransition('approval', from, to), `${from} → ${to}`).toBe(allowed);
      }
    }
  });
});

describe('failure codes (docs/protocol.md §6.4)', () => {
  it('makes every model failure a run failure, each code once', () => {
    for (const code of MODEL_FAILURE_CODES) expect(RUN_FAILURE_CODES).toContain(code);
    expect(new Set(RUN_FAILURE_CODES).size).toBe(RUN_FAILURE_CODES.length);
  });
});
