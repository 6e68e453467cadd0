/**
 * One approval: what the tool would do (every field that changes what runs, by
 * `approvalView`: a command, where it runs (a warning unless sandboxed without network)
 * and its folder whatever the preview's kind, a write's real path beside its diff, any
 * path outside the workspace; all escaped by `shownText`), the policy's reason, the
 * digest check, and Approve / Deny. Approve is enabled only while the approval is pending
 * and the digest recomputed here from exactly what the card shows equals the host's, and
 * the callbacks receive the digest to send (docs/protocol.md §6.5). Standalone (plain
 * props), so a test page can render it with a crafted approval.
 */
import { useMemo, useState } from 'preact/hooks';
import type { Approval, RuleProposal, ToolCall } from '#protocol';
import { approvalView, commandLine, type SandboxView } from '#client';
import { answerDigest, checkApproval } from '../logic/approval-check.js';
import { DiffView } from './diff-view.js';
import { shownText } from './shown-text.js';

export interface ApprovalCardProps {
  approval: Approval;
  /** The tool call the approval is for, when known. */
  toolCall?: ToolCall | undefined;
  /** The workspace's real path the digest covers (normally `approval.workspace`). */
  workspace: string;
  /** The name of the device that answered, when a device did. */
  resolverName?: string | undefined;
  /** Set while this device's answer is on its way (stored in the outbox). */
  sending?: 'approve' | 'deny' | 'rule' | undefined;
  /** An error from this device's answer, in words. */
  error?: string | undefined;
  /** Approve, with the `inputDigest` recomputed from what the card shows. */
  onApprove: (inputDigest: string) => void;
  /** Deny, with the `inputDigest` to send (see `answerDigest`). */
  onDeny: (inputDigest: string) => void;
  /**
   * Adds the rule the host offered and approves, with the approve digest; without it the
   * card offers no rule.
   */
  onAddRule?: ((inputDigest: string) => void) | undefined;
}

export function ApprovalCard(props: ApprovalCardProps) {
  const { approval, workspace, sending, error } = props;
  const view = approvalView(approval);
  const check = useMemo(() => checkApproval(approval, workspace), [approval, workspace]);
  const { matches } = check;
  const pending = approval.state === 'pending';
  const approveDigest = answerDigest(approval, check, 'approve');
  const denyDigest = answerDigest(approval, check, 'deny');
  return (
    <section
      class={`card approval-card approval-${approval.state}`}
      data-testid="approval-card"
      data-approval-id={approval.id}
      data-state={approval.state}
    >
      <header class="card-head">
        <span class="approval-title" data-testid="approval-title">
          {TITLES[approval.state]}
        </span>
        <code class="tool-name" data-testid="approval-tool">
          {approval.name}
        </code>
      </header>
      {view.outside && (
        <p class="approval-outside" data-testid="approval-outside">
          Outside the workspace: {shownText(view.outside.path)} ({view.outside.access})
        </p>
      )}
      <dl class="approval-detail">
        {view.mcp !== undefined && (
          <>
            <dt>{view.mcp.agent ? 'Agent' : 'MCP server'}</dt>
            <dd>
              <code data-testid="approval-mcp-server">{shownText(view.mcp.server)}</code>
            </dd>
            <dt>Tool</dt>
            <dd>
              <code data-testid="approval-mcp-tool">{shownText(view.mcp.tool)}</code>
              {view.mcp.readOnlyHint && (
                <span class="muted small" data-testid="approval-mcp-hint">
                  {' '}
                  (the server says this tool only reads: a claim, not checked)
                </span>
              )}
            </dd>
            <dt>Says it does</dt>
            <dd data-testid="approval-mcp-description">{shownText(view.mcp.description)}</dd>
            <dt>Arguments</dt>
            <dd>
              <pre class="command" data-testid="approval-mcp-arguments">
                {shownText(view.mcp.arguments)}
              </pre>
              {view.mcp.agent && view.sandbox && <SandboxLine sandbox={view.sandbox} />}
            </dd>
          </>
        )}
        {view.command !== undefined && (
          <>
            <dt>Command</dt>
            <dd>
              <pre class="command" data-testid="approval-command">
                {shownText(view.command)}
              </pre>
              {view.sandbox && <SandboxLine sandbox={view.sandbox} />}
            </dd>
            <dt>In folder</dt>
            <dd>
              <code data-testid="approval-cwd">{shownText(view.folder ?? workspace)}</code>
            </dd>
          </>
        )}
        {view.path !== undefined && (
          <>
            <dt>{view.diff === undefined ? 'Path' : 'File'}</dt>
            <dd>
              <code data-testid="approval-path">{shownText(view.path)}</code>
            </dd>
          </>
        )}
        {view.realPath && (
          <>
            <dt>Real path</dt>
            <dd>
              <code data-testid="approval-real-path">{shownText(view.realPath)}</code>
            </dd>
          </>
        )}
        {view.access && (
          <>
            <dt>Access</dt>
            <dd>{view.access}</dd>
          </>
        )}
        {view.diff !== undefined && (
          <>
            <dt>Change</dt>
            <dd>
              <DiffView diff={view.diff} testId="approval-diff" />
            </dd>
          </>
        )}
      </dl>
      <p class="approval-reason" data-testid="approval-reason">
        {shownText(approval.reason)}
      </p>
      <details class="approval-input">
        <summary>Exact input</summary>
        <pre>{shownText(JSON.stringify(approval.input, null, 2))}</pre>
        <p class="muted">Workspace: {workspace}</p>
      </details>
      <p
        class={`approval-digest ${matches ? 'ok' : 'bad'}`}
        data-testid="approval-digest"
        data-match={String(matches)}
      >
        {matches
          ? 'Checked: this is exactly what the host will run.'
          : 'Does not match what the host asked about. Do not approve.'}
      </p>
      {pending && props.onAddRule !== undefined && (
        <RuleOffer
          proposal={approval.preview.ruleProposal}
          disabled={approveDigest === undefined || sending !== undefined}
          sending={sending === 'rule'}
          onConfirm={() => approveDigest !== undefined && props.onAddRule?.(approveDigest)}
        />
      )}
      {pending ? (
        <div class="actions">
          <button
            type="button"
            class="button danger-outline"
            data-testid="approval-deny"
            disabled={denyDigest === undefined || sending !== undefined}
            onClick={() => denyDigest !== undefined && props.onDeny(denyDigest)}
          >
            {sending === 'deny' ? 'Denying…' : 'Deny'}
          </button>
          <button
            type="button"
            class="button primary"
            data-testid="approval-approve"
            disabled={approveDigest === undefined || sending !== undefined}
            onClick={() => approveDigest !== undefined && props.onApprove(approveDigest)}
          >
            {sending === 'approve' ? 'Approving…' : 'Approve'}
          </button>
        </div>
      ) : (
        <p class="approval-resolved" data-testid="approval-resolved-by">
          {resolvedText(approval, props.resolverName)}
        </p>
      )}
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!view.sandbox?.contained && (
        <p class="muted small">
          Approved commands run with your user’s rights on the host; policy is not a sandbox.
        </p>
      )}
    </section>
  );
}

/**
 * "Allow like this from now on…": the rule the host offered (its exact words as code, and
 * what else it would match), added only by a second tap on "Add rule and approve"; or,
 * when the host offers none, why.
 */
function RuleOffer(props: {
  proposal: RuleProposal | undefined;
  disabled: boolean;
  sending: boolean;
  onConfirm: () => void;
}) {
  const { proposal } = props;
  const [open, setOpen] = useState(false);
  if (proposal === undefined) return null;
  if (!proposal.offered) {
    return (
      <p class="muted small approval-rule-none" data-testid="approval-rule-none">
        No “allow from now on” rule: {shownText(proposal.reason)}
      </p>
    );
  }
  if (!open) {
    return (
      <div class="actions">
        <button
          type="button"
          class="button"
          data-testid="approval-rule-open"
          disabled={props.disabled}
          onClick={() => setOpen(true)}
        >
          Allow like this from now on…
        </button>
      </div>
    );
  }
  return (
    <div class="approval-rule" data-testid="approval-rule">
      <p>Run this without asking from now on, in this workspace:</p>
      <pre class="command" data-testid="approval-rule-words">
        {shownText(commandLine(proposal.words))}
      </pre>
      <p class="muted small" data-testid="approval-rule-matches">
        {shownText(proposal.matches)}
      </p>
      <div class="actions">
        <button
          type="button"
          class="button"
          data-testid="approval-rule-cancel"
          disabled={props.sending}
          onClick={() => setOpen(false)}
        >
          Cancel
        </button>
        <button
          type="button"
          class="button primary"
          data-testid="approval-rule-confirm"
          disabled={props.disabled}
          onClick={props.onConfirm}
        >
          {props.sending ? 'Adding…' : 'Add rule and approve'}
        </button>
      </div>
    </div>
  );
}

/** The card's title: the question while it is open, then what was answered. */
const TITLES: Record<Approval['state'], string> = {
  pending: 'Approve?',
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/**
 * "approved on iPhone, at 09:41", "denied: expired unanswered, 1 Dec at 18:02", … (the
 * time when the host says it: `decidedAt`).
 */
function resolvedText(approval: Approval, resolverName: string | undefined): string {
  const by = approval.decidedBy;
  const at = approval.decidedAt == null ? '' : `, ${whenText(approval.decidedAt)}`;
  switch (approval.state) {
    case 'pending':
      return '';
    case 'expired':
      return `expired unanswered (counted as denied)${at}`;
    case 'cancelled':
      return `cancelled with its run${at}`;
    case 'approved':
    case 'denied': {
      const answer = approval.state;
      if (by === 'policy') return `${answer} by policy${at}`;
      if (by === 'expiry') return `${answer}: expired unanswered${at}`;
      if (by === 'cancel') return `${answer}: the run was cancelled${at}`;
      return `${answer} on ${resolverName ?? 'another device'}${at}`;
    }
  }
}

/** "at 09:41" today, else "1 Dec at 09:41" (the device's own clock and language). */
function whenText(at: number): string {
  const date = new Date(at);
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === new Date().toDateString()) return `at ${time}`;
  const day = date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  return `${day} at ${time}`;
}

/** Where a command or an agent runs: a warning unless sandboxed without network. */
function SandboxLine({ sandbox }: { sandbox: SandboxView }) {
  return (
    <p
      class={`approval-sandbox ${sandbox.contained && !sandbox.network ? 'contained' : 'warn'}`}
      data-testid="approval-sandbox"
      data-contained={String(sandbox.contained)}
      data-network={String(sandbox.network)}
    >
      {shownText(sandbox.line)}
    </p>
  );
}
