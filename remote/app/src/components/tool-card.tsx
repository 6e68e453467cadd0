/**
 * One tool call: its name, what it works on, its state, the output tail while it runs,
 * the full output on demand, and for an `unknown` call the plain explanation and the
 * reconcile choices.
 */
import type { ToolCall, ToolCallState } from '#protocol';
import { allowedByText, inputText } from '#client';
import { useSubmit } from '../hooks/use-submit.js';
import type { HostView } from '../state/app-view.js';
import { ReadPager } from './read-pager.js';
import { shownText } from './shown-text.js';
import { useState } from 'preact/hooks';

const STATE_LABELS: Record<ToolCallState, string> = {
  proposed: 'proposed',
  waiting_for_approval: 'needs approval',
  ready: 'about to run',
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  unknown: 'outcome unknown',
};

/** Where output exists to read: the tool has started. */
const HAS_OUTPUT: readonly ToolCallState[] = [
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'unknown',
];

export function ToolCard({ host, call }: { host: HostView; call: ToolCall }) {
  const tail = host.state.outputs[call.id];
  const subject = inputText(call.input, 'command') ?? inputText(call.input, 'path');
  const result = call.result;
  const summary = typeof result?.['summary'] === 'string' ? result['summary'] : undefined;
  return (
    <section
      class={`card tool-card tool-${call.state}`}
      data-testid="tool-card"
      data-tool-call-id={call.id}
      data-tool-name={call.name}
      data-state={call.state}
    >
      <header class="card-head">
        <code class="tool-name">{call.name}</code>
        <span class={`badge badge-tool-${call.state}`}>{STATE_LABELS[call.state]}</span>
      </header>
      {subject !== undefined && <pre class="tool-subject">{shownText(subject)}</pre>}
      {call.allowedBy !== undefined && (
        <p class="muted small" data-testid="tool-allowed-by">
          {shownText(allowedByText(call.allowedBy))}
        </p>
      )}
      {call.state === 'running' && (
        <pre class="output-tail" data-testid="tool-output-tail">
          {tail?.text ?? ''}
        </pre>
      )}
      {summary !== undefined && (
        <p class="tool-summary" data-testid="tool-summary">
          {shownText(summary)}
        </p>
      )}
      {call.state === 'unknown' && <UnknownOutcome host={host} call={call} />}
      {HAS_OUTPUT.includes(call.state) && (
        <ReadPager
          host={host}
          target={{ toolCallId: call.id }}
          loadLabel="Full output"
          ids={{
            load: 'tool-output-load',
            full: 'tool-output-full',
            download: 'tool-output-download',
            more: 'tool-output-more',
          }}
          render={(text) => <pre class="output-full">{text === '' ? '(no output)' : text}</pre>}
        />
      )}
    </section>
  );
}

function UnknownOutcome({ host, call }: { host: HostView; call: ToolCall }) {
  const [choosing, setChoosing] = useState(false);
  const action = useSubmit(host);
  const reconciled = call.result?.['reconciled'];
  const verdict =
    typeof reconciled === 'object' && reconciled !== null && 'outcome' in reconciled
      ? String(reconciled.outcome)
      : undefined;
  const answer = (outcome: 'happened' | 'did_not_happen') =>
    action.run(outcome, () =>
      action.submit('toolcall.reconcile', { toolCallId: call.id, outcome }),
    );
  return (
    <div class="explain">
      <p>
        The host stopped while this tool was running, so nobody knows whether it finished, ran
        partly, or never started. Tether will not run it again by itself. Check on the Mac, then say
        what happened.
      </p>
      {verdict !== undefined ? (
        <p class="muted" data-testid="tool-reconciled">
          You said:{' '}
          {verdict === 'happened'
            ? 'it happened'
            : verdict === 'did_not_happen'
              ? 'it did not happen'
              : 'unknown'}
          .
        </p>
      ) : choosing ? (
        <div class="actions">
          <button
            type="button"
            class="button"
            data-testid="tool-reconcile-happened"
            disabled={action.busy !== undefined}
            onClick={() => answer('happened')}
          >
            It happened
          </button>
          <button
            type="button"
            class="button"
            data-testid="tool-reconcile-not-happened"
            disabled={action.busy !== undefined}
            onClick={() => answer('did_not_happen')}
          >
            It did not happen
          </button>
        </div>
      ) : (
        <button
          type="button"
          class="button"
          data-testid="tool-reconcile"
          onClick={() => setChoosing(true)}
        >
          Reconcile
        </button>
      )}
      {action.error !== undefined && <p class="error">{action.error}</p>}
    </div>
  );
}
