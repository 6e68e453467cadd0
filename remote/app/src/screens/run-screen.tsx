/**
 * One run: its task, the conversation as it streams, tool cards with their approvals,
 * artifacts, and the actions its state allows (cancel, continue, follow-up).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Artifact, isTerminalRunState, type Message, type Run } from '#protocol';
import { costText, toolCallsOf, usageText, worktreeOf } from '#client';
import { ApprovalPill } from '../components/approval-pill.js';
import { DiffView } from '../components/diff-view.js';
import { FollowUp } from '../components/follow-up.js';
import { HostApproval } from '../components/host-approval.js';
import { MarkdownView } from '../components/markdown-view.js';
import { ReadPager } from '../components/read-pager.js';
import { RunOutcome } from '../components/run-outcome.js';
import { RunStateBadge } from '../components/run-state-badge.js';
import { SessionSummaries } from '../components/session-summaries.js';
import { ToolCard } from '../components/tool-card.js';
import { useFollowBottom } from '../hooks/use-follow-bottom.js';
import { useRun } from '../hooks/use-run.js';
import { useRunFacts } from '../hooks/use-run-facts.js';
import { useSubmit } from '../hooks/use-submit.js';
import { isChange } from '../logic/change-calls.js';
import { looksLikeDiff } from '../logic/diff-lines.js';
import {
  groupApprovals,
  newestSteps,
  RUN_WINDOW,
  RUN_WINDOW_STEP,
  timelineItems,
} from '../logic/run-timeline.js';
import { routeHash } from '../logic/route.js';
import {
  attachedCount,
  currentRetry,
  formatBytes,
  isSessionIdle,
} from '../logic/run-screen-view.js';
import { hostOf, useAppView } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { navigate } from '../state/route-hook.js';
import { lazyScreen } from './lazy-screen.js';

/** The files a run was given, with thumbnails: a chunk of its own. */
const RunAttachments = lazyScreen(
  () => import('../components/run-attachments.js').then((m) => m.RunAttachments),
  { part: true },
);

/** The review of a run that worked on its own branch: a chunk of its own. */
const WorktreeReview = lazyScreen(
  () => import('../components/worktree-review.js').then((m) => m.WorktreeReview),
  { part: true },
);

export function RunScreen({ hostId, runId }: { hostId: string; runId: string }) {
  const view = useAppView();
  const shown = useRun(hostOf(view, hostId), runId);
  const run = shown?.state.runs[runId];
  if (shown === undefined || run === undefined) {
    return (
      <main
        class="screen"
        data-testid="run-screen"
        data-run-id={runId}
        data-state=""
        data-session-idle="false"
      >
        <p class="empty">{shown === undefined ? 'This host is not paired.' : 'Loading the run…'}</p>
      </main>
    );
  }
  return <RunView host={shown} run={run} />;
}

function RunView({ host, run }: { host: HostView; run: Run }) {
  const { state } = host;
  const idle = isSessionIdle(state, run.id);
  const timeline = state.timelines[run.id] ?? [];
  const retry = currentRetry(run, timeline);
  const preview = state.previews[run.id];
  const terminal = isTerminalRunState(run.state);
  const action = useSubmit(host);
  const all = timelineItems(state, run.id, timeline);
  // A long run shows its newest steps; earlier ones come on demand, so opening a run of
  // thousands of tool calls costs a screenful of cards, not all of them.
  const [windowSize, setWindowSize] = useState(RUN_WINDOW);
  useEffect(() => setWindowSize(RUN_WINDOW), [run.id]);
  const { hidden, items } = newestSteps(all, windowSize);
  // By tool call, once a render: each card looks up its own instead of scanning them all.
  const runApprovals = Object.values(state.approvals).filter(
    (approval) => approval.runId === run.id,
  );
  const approvals = groupApprovals(runApprovals, all);
  const pending = runApprovals.filter((approval) => approval.state === 'pending').length;
  // The page follows the run's end while the reader is there; the pill points at an
  // approval waiting out of view.
  const screen = useRef<HTMLElement>(null);
  const dock = useRef<HTMLDivElement>(null);
  useFollowBottom(screen, run.id, !terminal);

  const cancel = () => action.run('cancel', () => action.submit('run.cancel', { runId: run.id }));
  const resume = () =>
    action.run('continue', async () => {
      const result = await action.submit('run.continue', { runId: run.id });
      navigate({ screen: 'run', hostId: host.hostId, runId: result.runId });
    });

  return (
    <main
      ref={screen}
      class="screen run"
      data-testid="run-screen"
      data-run-id={run.id}
      data-state={run.state}
      data-session-idle={String(idle)}
    >
      <header class="run-head">
        <RunStateBadge state={run.state} />
        <p class="run-task" data-testid="run-task">
          {run.input.text}
        </p>
        {run.continuesRunId !== null && (
          <a
            class="muted small"
            href={`#/run/${encodeURIComponent(host.hostId)}/${encodeURIComponent(run.continuesRunId)}`}
          >
            continues an earlier run
          </a>
        )}
        <RunFacts host={host} run={run} />
      </header>

      {attachedCount(run) > 0 && <RunAttachments host={host} run={run} />}
      <SessionSummaries host={host} run={run} />
      {hidden > 0 && (
        <button
          type="button"
          class="button wide"
          data-testid="run-earlier"
          onClick={() => setWindowSize((size) => size + RUN_WINDOW_STEP)}
        >
          Show {Math.min(hidden, RUN_WINDOW_STEP).toLocaleString()} earlier steps (
          {hidden.toLocaleString()} hidden)
        </button>
      )}
      {items.map((item) => {
        if (item.kind === 'message')
          return <AssistantMessage key={item.message.id} message={item.message} />;
        return [
          <ToolCard key={item.call.id} host={host} call={item.call} />,
          ...(approvals.byCall.get(item.call.id) ?? []).map((approval) => (
            <HostApproval key={approval.id} host={host} approval={approval} />
          )),
        ];
      })}
      {approvals.loose.map((approval) => (
        <HostApproval key={approval.id} host={host} approval={approval} />
      ))}
      {preview !== undefined && !terminal && (
        <AssistantMessage
          key={preview.messageId}
          streaming
          message={{
            id: preview.messageId,
            text: preview.text,
            reasoning: preview.reasoning || null,
          }}
        />
      )}
      {retry !== undefined && (
        <p class="notice retry" data-testid="retry-notice">
          The model did not answer: retrying ({retry.attempt} of {retry.maxAttempts}).{' '}
          {retry.reason}
        </p>
      )}
      <RunOutcome run={run} />
      {worktreeOf(state.sessions[run.sessionId]) !== undefined && (
        <WorktreeReview host={host} run={run} />
      )}
      <Artifacts host={host} artifacts={state.artifacts[run.id] ?? []} />

      {/* The dock stays put at the bottom of the screen (above the keyboard when it is
          open) while the text above it streams: its buttons never move under a thumb. */}
      <div class="run-dock" data-testid="run-dock" ref={dock}>
        <ApprovalPill screen={screen} dock={dock} pending={pending} />
        <RunActions
          run={run}
          busy={action.busy !== undefined}
          onCancel={cancel}
          onContinue={resume}
        />
        {action.error !== undefined && <p class="error">{action.error}</p>}
        <FollowUp host={host} run={run} idle={idle} />
      </div>
    </main>
  );
}

/** The run's token usage as the host sums it, its cost estimate, and the way to its changes. */
function RunFacts({ host, run }: { host: HostView; run: Run }) {
  const { result } = useRunFacts(host, run, 'run.usage');
  const changing = toolCallsOf(host.state, run.id).filter(isChange).length;
  const tokens = result === undefined ? undefined : usageText(result.run);
  const cost = result === undefined ? undefined : costText(result.run);
  const sessionTokens =
    result !== undefined && result.session.messages > result.run.messages
      ? usageText(result.session)
      : undefined;
  const sessionCost = result === undefined ? undefined : costText(result.session);
  const session =
    sessionTokens === undefined
      ? undefined
      : `${sessionTokens}${sessionCost === undefined ? '' : ` · ${sessionCost}`}`;
  return (
    <div class="run-facts">
      {tokens !== undefined && (
        <p class="muted small" data-testid="run-usage">
          {tokens}
          {cost !== undefined && (
            <>
              {' · '}
              <span data-testid="run-cost">{cost}</span>
            </>
          )}
        </p>
      )}
      {session !== undefined && (
        <p class="muted small" data-testid="session-usage">
          This conversation: {session}
        </p>
      )}
      <a
        class="button"
        data-testid="run-changes"
        data-count={String(changing)}
        href={routeHash({ screen: 'changes', hostId: host.hostId, runId: run.id })}
      >
        Changes ({changing})
      </a>
    </div>
  );
}

function RunActions({
  run,
  busy,
  onCancel,
  onContinue,
}: {
  run: Run;
  busy: boolean;
  onCancel: () => void;
  onContinue: () => void;
}) {
  const terminal = isTerminalRunState(run.state);
  const resumable =
    run.state === 'interrupted' || run.state === 'failed' || run.state === 'cancelled';
  if (terminal && !resumable) return null;
  return (
    <div class="actions">
      {!terminal && (
        <button
          type="button"
          class="button danger-outline"
          data-testid="run-cancel"
          disabled={busy || run.state === 'cancelling'}
          onClick={onCancel}
        >
          {run.state === 'cancelling' ? 'Cancelling…' : 'Cancel run'}
        </button>
      )}
      {resumable && (
        <button
          type="button"
          class="button primary"
          data-testid="run-continue"
          disabled={busy}
          onClick={onContinue}
        >
          Continue
        </button>
      )}
    </div>
  );
}

function AssistantMessage({
  message,
  streaming = false,
}: {
  message: Pick<Message, 'id' | 'text' | 'reasoning'>;
  streaming?: boolean;
}) {
  return (
    <article class="message" data-testid="assistant-message" data-streaming={String(streaming)}>
      {message.reasoning !== null && message.reasoning !== '' && (
        <details class="reasoning" data-testid="reasoning">
          <summary>Reasoning</summary>
          <p class="reasoning-text">{message.reasoning}</p>
        </details>
      )}
      <MarkdownView text={message.text} />
      {streaming && <span class="cursor" aria-hidden="true" />}
    </article>
  );
}

function Artifacts({ host, artifacts }: { host: HostView; artifacts: readonly Artifact[] }) {
  if (artifacts.length === 0) return null;
  return (
    <section class="card artifacts">
      <h2 class="card-title">Files</h2>
      {artifacts.map((artifact) => (
        <div
          class="artifact"
          key={artifact.id}
          data-testid="artifact"
          data-artifact-id={artifact.id}
        >
          <p>
            <code>{artifact.name}</code>{' '}
            <span class="muted small">{formatBytes(artifact.bytes)}</span>
          </p>
          <ReadPager
            host={host}
            target={{ artifactId: artifact.id }}
            loadLabel="Open"
            ids={{
              load: 'artifact-load',
              full: 'artifact-full',
              download: 'artifact-download',
              more: 'artifact-more',
            }}
            render={(text) =>
              looksLikeDiff(artifact.name, artifact.kind) ? (
                <DiffView diff={text} />
              ) : (
                <pre class="output-full">{text}</pre>
              )
            }
          />
        </div>
      ))}
    </section>
  );
}
