/**
 * A run's state as a colored badge.
 */
import type { RunState } from '#protocol';
import { RUN_STATE_LABELS } from '../logic/run-view.js';

export function RunStateBadge({ state }: { state: RunState }) {
  return (
    <span class={`badge badge-${state}`} data-testid="run-state-badge" data-state={state}>
      {RUN_STATE_LABELS[state]}
    </span>
  );
}
