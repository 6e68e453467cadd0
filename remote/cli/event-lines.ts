/**
 * Durable events as the lines `watch` and `submit --wait` print: state changes, tool
 * calls with their state, approvals, retries. Assistant text is the follower's business.
 */
import { z } from 'zod';
import { RunIntegrated, RunResult, type Approval, type Event } from '../../protocol/index.js';
import {
  allowedByText,
  failureText,
  approvalView,
  commandLine,
  hiddenCount,
  type HostState,
  visibleText,
} from '../client/index.js';
import { clip, formatToolInput } from './format.js';

/** What `session.compacted` says, as this line shows it (its payload schema names none). */
const SessionCompacted = z.looseObject({
  coversSeq: z.tuple([z.number(), z.number()]),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
});

/** What an approval card shows. */
export type ApprovalCard = Pick<
  Approval,
  'id' | 'name' | 'reason' | 'preview' | 'workspace' | 'input'
>;

/**
 * `label` and `value`, escaped ({@link visibleText}) and whole: a value's later lines are
 * marked `⏎` in the value's column, so no line of it can pass for a line of the card.
 */
function labelled(label: string, value: string): string[] {
  const [first, ...rest] = visibleText(value).split('\n');
  return [`  ${label.padEnd(8)} ${first}`, ...rest.map((line) => `         ⏎ ${line}`)];
}

/**
 * How an approval card reads, by {@link approvalView}: a `run_command`'s whole command,
 * where it runs (sandboxed or not) and its folder (whatever the preview's kind), a write's
 * path, real path and diff, a path and its access, the real path when the host's differs,
 * any path outside the workspace, and a note when hidden characters were shown escaped.
 * Nothing is cut.
 */
export function describeApproval(approval: ApprovalCard): string[] {
  const view = approvalView(approval);
  const lines = [
    `approval ${approval.id}: ${approval.name} wants approval (${visibleText(approval.reason)})`,
  ];
  const { mcp } = view;
  if (mcp !== undefined) {
    const hint = mcp.readOnlyHint ? ' (the server says it only reads: a claim, not checked)' : '';
    lines.push(
      ...(mcp.agent
        ? [
            ...labelled('agent:', `${mcp.server} asks: ${mcp.tool}`),
            ...labelled('kind:', mcp.description),
            ...labelled('input:', mcp.arguments),
          ]
        : [
            ...labelled('mcp:', `${mcp.tool} of server ${mcp.server}${hint}`),
            ...labelled('says:', mcp.description),
            ...labelled('args:', mcp.arguments),
          ]),
    );
  }
  if (view.command !== undefined) {
    lines.push(...labelled('command:', view.command));
    if (view.sandbox !== undefined) lines.push(...labelled('runs:', view.sandbox.line));
    lines.push(...labelled('folder:', view.folder ?? ''));
  }
  if (view.path !== undefined) {
    const what = view.access === undefined ? view.path : `${view.path} (${view.access})`;
    lines.push(...labelled(view.diff === undefined ? 'path:' : 'writes:', what));
  }
  if (view.realPath !== undefined) lines.push(...labelled('real path:', view.realPath));
  const { outside } = view;
  if (outside !== undefined) {
    lines.push(...labelled('outside the workspace:', `${outside.path} (${outside.access})`));
  }
  if (view.diff !== undefined) {
    lines.push(
      ...visibleText(view.diff)
        .split('\n')
        .map((line) => `  │ ${line}`),
    );
  }
  lines.push(...labelled('workspace:', approval.workspace));
  const { command, sandbox, folder, path, realPath, diff } = view;
  const shown = [
    approval.reason,
    approval.workspace,
    command,
    sandbox?.line,
    folder,
    path,
    realPath,
    diff,
    mcp?.server,
    mcp?.tool,
    mcp?.description,
    mcp?.arguments,
  ];
  const hidden = [...shown, outside?.path].reduce((n, text) => n + hiddenCount(text ?? ''), 0);
  if (hidden > 0) {
    lines.push(
      `  note: ${hidden} hidden character(s) (control, ANSI escape, bidi or invisible) shown escaped as \\x.., \\r or \\u{....}`,
    );
  }
  return lines;
}

/** A pending approval as `watch` shows it: the card, and how to answer it. */
export function pendingApprovalLines(approval: ApprovalCard): string[] {
  return [
    ...describeApproval(approval),
    `  answer: tether remote approve ${approval.id}  (or deny ${approval.id})`,
  ];
}

function toolName(state: HostState, event: Event): string {
  const call = event.toolCallId === null ? undefined : state.toolCalls[event.toolCallId];
  return call?.name ?? event.toolCallId ?? 'tool';
}

/** The lines one event prints (none for events a person need not see). */
export function eventLines(
  event: Event,
  state: HostState,
  deviceNames: ReadonlyMap<string, string> = new Map(),
): string[] {
  switch (event.type) {
    case 'run.queued':
      return [`queued: ${clip(event.payload.input.text)}`];
    case 'run.started':
      return ['running'];
    case 'model.retry': {
      const { attempt, maxAttempts, delayMs, reason, status } = event.payload;
      const why = status === undefined ? reason : `${reason}, status ${status}`;
      return [
        `retrying (${attempt} of ${maxAttempts}) in ${(delayMs / 1000).toFixed(1)} s: ${why}`,
      ];
    }
    case 'tool.proposed':
      return [`tool ${event.payload.name} ${formatToolInput(event.payload.input)}: proposed`];
    case 'tool.approval_requested': {
      const { approvalId, name, reason, preview, workspace, input } = event.payload;
      return [
        'waiting for approval',
        ...pendingApprovalLines({ id: approvalId, name, reason, preview, workspace, input }),
      ];
    }
    case 'tool.approval_resolved': {
      const { approvalId, decision, by } = event.payload;
      const name = state.devices[by]?.name ?? deviceNames.get(by);
      const who = name === undefined ? by : `${name} (${by})`;
      return [`approval ${approvalId}: ${decision} by ${who}`];
    }
    case 'tool.started': {
      const { allowedBy } = event.payload;
      const why = allowedBy === undefined ? '' : ` (${allowedByText(allowedBy)})`;
      return [`tool ${toolName(state, event)}: running${why}`];
    }
    case 'tool.finished': {
      const { status, summary, error } = event.payload;
      const detail = error === undefined ? summary : `${error.code}: ${error.message}`;
      return [`tool ${toolName(state, event)}: ${status}${detail === '' ? '' : ` (${detail})`}`];
    }
    case 'tool.reconciled':
      return [`tool ${toolName(state, event)}: reconciled as ${event.payload.outcome}`];
    case 'artifact.created':
      return [`artifact ${event.payload.name} (${event.payload.bytes} bytes)`];
    case 'run.cancel_requested':
      return [`cancelling (asked by ${event.payload.by})`];
    case 'run.finished': {
      const { state: final, error, reason } = event.payload;
      if (error === undefined) return [reason === undefined ? final : `${final}: ${reason}`];
      // What failed in a sentence, the host's words after it, then what to do.
      const { summary, advice } = failureText(error);
      const said = `${final}: ${summary} (${error.code}: ${error.message})`;
      return advice === undefined ? [said] : [said, `  what to do: ${advice}`];
    }
    case 'device.paired':
    case 'device.revoked':
      return [
        `device ${event.payload.name} ${event.type === 'device.paired' ? 'paired' : 'revoked'}`,
      ];
    case 'policy.rule_added':
      return [
        `rule added by ${event.payload.byName}: ${visibleText(commandLine(event.payload.rule))}`,
      ];
    case 'policy.rule_removed':
      return [`rule removed: ${visibleText(commandLine(event.payload.rule))}`];
    case 'device.renamed':
      return [
        `device ${visibleText(event.payload.previousName)} renamed ${visibleText(event.payload.name)}`,
      ];
    case 'run.result': {
      const parsed = RunResult.safeParse(event.payload);
      if (!parsed.success) return ['run result recorded'];
      const { branch, stat, committed } = parsed.data;
      const change = `${stat.files} file${stat.files === 1 ? '' : 's'}, +${stat.additions} -${stat.deletions}`;
      return [
        committed
          ? `ready to review on ${branch}: ${change} (tether remote review ${event.runId ?? ''})`
          : `nothing new on ${branch} (${change} since its base)`,
      ];
    }
    case 'run.integrated': {
      const parsed = RunIntegrated.safeParse(event.payload);
      if (!parsed.success) return ['review answered'];
      const { action, into, how } = parsed.data;
      if (action === 'merge') {
        const way = how === undefined ? '' : ` (${how.replace(/_/g, ' ')})`;
        return [`merged into ${into ?? 'the checkout'}${way}`];
      }
      return [
        action === 'keep' ? 'branch kept, worktree removed' : 'worktree and branch discarded',
      ];
    }
    case 'host.started':
      return ['host started'];
    case 'host.stopping':
      return ['host stopping'];
    case 'session.compacted': {
      const parsed = SessionCompacted.safeParse(event.payload);
      if (!parsed.success) return ['earlier conversation summarised'];
      const { coversSeq, tokensBefore, tokensAfter } = parsed.data;
      return [
        `earlier conversation summarised (events ${coversSeq[0]} to ${coversSeq[1]}; about ${tokensBefore} tokens of context became ${tokensAfter})`,
      ];
    }
    case 'session.created':
    case 'model.request':
    case 'message.completed':
    case 'session.idle':
      return [];
  }
}
