/**
 * Durable events as the lines `watch` and `submit --wait` print: state changes, tool
 * calls with their state, approvals, retries. Assistant text is the follower's business.
 */
import type { Approval, Event } from '../../protocol/index.js';
import type { HostState } from '../client/index.js';
import { clip, formatToolInput } from './format.js';

/** What an approval card shows. */
export type ApprovalCard = Pick<Approval, 'id' | 'name' | 'reason' | 'preview' | 'workspace'>;

/** How an approval card reads: the tool, and the command and folder, the diff, or the path. */
export function describeApproval(approval: ApprovalCard): string[] {
  const { preview } = approval;
  const lines = [`approval ${approval.id}: ${approval.name} wants approval (${approval.reason})`];
  switch (preview.kind) {
    case 'command':
      lines.push(`  command: ${preview.command}`, `  folder:  ${preview.cwd}`);
      break;
    case 'write':
      lines.push(`  writes:  ${preview.path}`, ...preview.diff.split('\n').map((l) => `  ${l}`));
      break;
    case 'path':
      lines.push(`  path:    ${preview.path} (${preview.access})`);
      break;
  }
  lines.push(`  workspace: ${approval.workspace}`);
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
export function eventLines(event: Event, state: HostState): string[] {
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
      const { approvalId, name, reason, preview, workspace } = event.payload;
      return [
        'waiting for approval',
        ...pendingApprovalLines({ id: approvalId, name, reason, preview, workspace }),
      ];
    }
    case 'tool.approval_resolved':
      return [
        `approval ${event.payload.approvalId}: ${event.payload.decision} by ${event.payload.by}`,
      ];
    case 'tool.started':
      return [`tool ${toolName(state, event)}: running`];
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
      const why = error === undefined ? reason : `${error.code}: ${error.message}`;
      return [why === undefined ? final : `${final}: ${why}`];
    }
    case 'device.paired':
    case 'device.revoked':
      return [
        `device ${event.payload.name} ${event.type === 'device.paired' ? 'paired' : 'revoked'}`,
      ];
    case 'host.started':
      return ['host started'];
    case 'host.stopping':
      return ['host stopping'];
    case 'session.created':
    case 'model.request':
    case 'message.completed':
    case 'session.idle':
      return [];
  }
}
