/**
 * `tether remote approve <approvalId>` and `tether remote deny <approvalId>`: shows what
 * the approval is for, recomputes its input digest from what it shows (docs/protocol.md §6.5),
 * refuses to answer when the digest differs, and sends the answer bound to that digest.
 * Approve asks `Approve? [y/N]` on a terminal first (or takes `--yes`); without a
 * terminal and `--yes` it refuses. Deny asks nothing: denying is always safe.
 */
import { type Approval, digest, TetherError } from '../../protocol/index.js';
import { type HostConnection, pendingApprovals, visibleText } from '../client/index.js';
import { parseCommandArgs } from '../../common/cli/index.js';
import { confirm } from './confirm-prompt.js';
import { describeApproval } from './event-lines.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';
import { sendCommand } from './send-command.js';

/** The usage of `approve` or `deny`. */
export function approvalUsage(decision: 'approve' | 'deny'): string {
  if (decision === 'deny') {
    return `Usage: tether remote deny <approvalId> [--note TEXT] [--host HOSTID] [--state FILE]

Shows what the approval is for and denies it. \`tether remote watch\` lists pending approvals.

Options:
  --note TEXT   a note kept with the answer
`;
  }
  return `Usage: tether remote approve <approvalId> [--yes] [--note TEXT] [--host HOSTID] [--state FILE]

Shows what the approval is for (the whole command, whether it runs in the sandbox, and
its folder; the file and its diff; any path outside the workspace) and, if its input
digest matches what it shows, asks "Approve? [y/N]" and approves it only on y. Without a
terminal to ask on it approves only with --yes. \`tether remote watch\` lists pending approvals.

Options:
  --yes         approve without asking (for scripts: read the card first)
  --note TEXT   a note kept with the answer
`;
}

const FLAGS = { ...STATE_FLAG, ...HOST_FLAG, note: { type: 'string' } } as const;
const APPROVE_FLAGS = { ...FLAGS, yes: { type: 'boolean', short: 'y' } } as const;

/**
 * The input digest recomputed from what the approval shows; throws `digest_mismatch` when
 * it differs from the approval's own.
 */
function verifiedDigest(approval: Approval): string {
  const inputDigest = digest({
    tool: approval.name,
    input: approval.input,
    workspace: approval.workspace,
  });
  if (inputDigest !== approval.inputDigest) {
    throw new TetherError(
      'digest_mismatch',
      `approval ${approval.id} is not for what it shows (its digest ${approval.inputDigest}, ` +
        `recomputed ${inputDigest}): not answered`,
    );
  }
  return inputDigest;
}

/** The pending approval, from a fresh snapshot of the host. */
async function findApproval(connection: HostConnection, approvalId: string): Promise<Approval> {
  const subscription = connection.subscribeEvents({});
  try {
    await subscription.ready;
  } finally {
    subscription.close();
  }
  const approval = pendingApprovals(connection.state.state).find((a) => a.id === approvalId);
  if (approval === undefined) {
    throw new TetherError(
      'not_found',
      `no pending approval ${approvalId} on ${connection.hostName} (answered, expired, or never asked; tether remote watch lists pending ones)`,
    );
  }
  return approval;
}

/** `tether remote approve` or `tether remote deny`; resolves with the exit code. */
export function approvalCommand(decision: 'approve' | 'deny') {
  return async (argv: readonly string[], ctx: RemoteContext): Promise<number> => {
    const required = { required: ['<approvalId>'] };
    const { values, positionals, help } =
      decision === 'approve'
        ? parseCommandArgs(argv, APPROVE_FLAGS, required)
        : parseCommandArgs(argv, FLAGS, required);
    const asks = decision === 'approve' && !('yes' in values && values.yes === true);
    if (help) {
      ctx.out(approvalUsage(decision));
      return 0;
    }
    const approvalId = positionals[0]!;
    return withHost(ctx, values, async (connection) => {
      const approval = await findApproval(connection, approvalId);
      for (const line of describeApproval(approval)) ctx.out(line + '\n');
      ctx.out(`  input: ${visibleText(JSON.stringify(approval.input))}\n`);
      const inputDigest = verifiedDigest(approval);
      if (asks) {
        if (ctx.terminal === undefined) {
          ctx.err(
            'tether remote approve: not approved: stdin is not a terminal, so nobody can confirm; ' +
              'read the card above and pass --yes to approve it\n',
          );
          return 1;
        }
        if (
          !(await confirm('Approve? [y/N] ', ctx.terminal, (text) => ctx.out(text), ctx.signal))
        ) {
          ctx.err('tether remote approve: not approved (only y or yes approves)\n');
          return 1;
        }
      }
      const { status } = await sendCommand(connection, ctx, 'approval.respond', {
        approvalId,
        toolCallId: approval.toolCallId,
        inputDigest,
        decision,
        ...(values.note === undefined ? {} : { note: values.note }),
      });
      ctx.out(`${status}\n`);
      return 0;
    });
  };
}
