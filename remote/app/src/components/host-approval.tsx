/**
 * An {@link ApprovalCard} wired to its host: the tool call, the answering device's name,
 * and the answer sent through the outbox with the digest the card recomputed from what
 * it shows (the card hands it over; nothing here recomputes or takes the event's).
 */
import type { Approval } from '#protocol';
import { useSubmit } from '../hooks/use-submit.js';
import type { HostView } from '../state/app-view.js';
import { ApprovalCard } from './approval-card.js';

export function HostApproval({ host, approval }: { host: HostView; approval: Approval }) {
  const action = useSubmit(host);
  const by = approval.decidedBy;
  const resolverName = by === null ? undefined : host.state.devices[by]?.name;
  const respond = (decision: 'approve' | 'deny', inputDigest: string) =>
    action.run(decision, () =>
      action.submit('approval.respond', {
        approvalId: approval.id,
        toolCallId: approval.toolCallId,
        inputDigest,
        decision,
      }),
    );
  const addRule = (inputDigest: string) =>
    action.run('rule', () =>
      action.submit('policy.rule_add', {
        approvalId: approval.id,
        toolCallId: approval.toolCallId,
        inputDigest,
      }),
    );
  const sending = approval.state === 'pending' ? action.busy : undefined;
  return (
    <ApprovalCard
      approval={approval}
      toolCall={host.state.toolCalls[approval.toolCallId]}
      workspace={approval.workspace}
      resolverName={resolverName}
      sending={
        sending === 'approve' || sending === 'deny' || sending === 'rule' ? sending : undefined
      }
      error={action.error}
      onApprove={(inputDigest) => respond('approve', inputDigest)}
      onDeny={(inputDigest) => respond('deny', inputDigest)}
      onAddRule={addRule}
    />
  );
}
