/**
 * Why a run ended as it did, in plain words (`run-explain`): interrupted, cancelled, or
 * failed: what failed in a sentence and what to run on the host's computer
 * (remote/client's `failureText`, from the failure code), the host's own message after it.
 */
import type { Run } from '#protocol';
import { failureText } from '#client';

export function RunOutcome({ run }: { run: Run }) {
  switch (run.state) {
    case 'interrupted':
      return (
        <p class="notice explain" data-testid="run-explain">
          The host stopped (it crashed or was shut down) while this run was working, so it did not
          finish, and nothing more will happen on its own. Continue starts a new run in the same
          conversation that picks up from here.
        </p>
      );
    case 'failed':
      return <RunFailure run={run} />;
    case 'cancelled':
      return (
        <p class="notice" data-testid="run-explain">
          The run was cancelled.
        </p>
      );
    case 'queued':
      return <p class="notice muted">Waiting for its turn on the host.</p>;
    case 'running':
    case 'waiting_for_approval':
    case 'cancelling':
    case 'succeeded':
      return null;
  }
}

function RunFailure({ run }: { run: Run }) {
  const { summary, advice } = failureText(run.error);
  return (
    <div
      class="notice error run-failure"
      data-testid="run-explain"
      data-code={run.error?.code ?? ''}
      role="alert"
    >
      <p class="run-failure-summary">{summary}</p>
      {advice !== undefined && (
        <p class="small" data-testid="run-advice">
          {advice}
        </p>
      )}
      {run.error !== null && (
        <p class="small run-failure-detail" data-testid="run-error-detail">
          Host reports: {run.error.message}
        </p>
      )}
    </div>
  );
}
