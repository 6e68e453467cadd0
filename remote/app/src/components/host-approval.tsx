/**
 * An {@link ApprovalCard} wired to its host: the tool call, the answering device's name,
 * and the answer sent through the outbox with the digest recomputed from what is shown.
 */
import type { Approval } from '../../../../protocol/index.js';
import { approvalDigest } from '../logic/approval-check.js';
import type { HostView } from '../state/app-model.js';
import { useAction } from '../state/use-action.js';
import { ApprovalCard } from './approval-card.js';

export function HostApproval({ host, approval }: { host: HostView; approval: Approval }) {
  const action = useAction();
  const by = approval.decidedBy;
  const resolverName = by === null ? undefined : host.state.devices[by]?.name;
  const respond = (decision: 'approve' | 'deny') =>
    action.run(decision, () =>
      host.connection.submit('approval.respond', {
        approvalId: approval.id,
        toolCallId: approval.toolCallId,
        inputDigest: approvalDigest(approval.name, approval.input, approval.workspace),
        decision,
      }),
    );
  const sending = approval.state === 'pending' ? action.busy : undefined;
  return (
    <ApprovalCard
      approval={approval}
      toolCall={host.state.toolCalls[approval.toolCallId]}
      workspace={approval.workspace}
      resolverName={resolverName}
      sending={sending === 'approve' || sending === 'deny' ? sending : undefined}
      error={action.error}
      onApprove={() => respond('approve')}
      onDeny={() => respond('deny')}
    />
  );
}
