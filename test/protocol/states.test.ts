import { describe, expect, it } from 'vitest';
import {
  RUN_STATES,
  TOOL_CALL_STATES,
  canTransition,
  isTerminalRunState,
  isTerminalToolCallState,
} from '../../protocol/index.js';

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
