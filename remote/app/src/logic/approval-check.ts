/**
 * What makes an approval safe to approve (docs/protocol.md §6.5): the digest recomputed here,
 * from exactly the name, input and workspace the card shows, equals the event's.
 */
import { type Approval, digest } from '#protocol';
import { inputText } from '#client';

/** The digest recomputed from what a card shows, and whether it is safe to approve. */
export interface ApprovalCheck {
  /** `digest({tool, input, workspace})` of the shown values; undefined when they cannot be hashed. */
  digest: string | undefined;
  /** The digest equals the approval's `inputDigest` and the preview agrees with the input. */
  matches: boolean;
}

/**
 * Recomputes the digest from the shown name, input and workspace, and checks it against
 * the approval's `inputDigest`; for a command, the preview must also show the command of
 * that input (so the card cannot show one command and approve another).
 */
export function checkApproval(
  approval: Pick<Approval, 'name' | 'input' | 'inputDigest' | 'preview'>,
  workspace: string,
): ApprovalCheck {
  let computed: string;
  try {
    computed = digest({ tool: approval.name, input: approval.input, workspace });
  } catch {
    return { digest: undefined, matches: false };
  }
  if (computed !== approval.inputDigest) return { digest: computed, matches: false };
  const { preview, input } = approval;
  const agrees = preview.kind !== 'command' || inputText(input, 'command') === preview.command;
  return { digest: computed, matches: agrees };
}

/**
 * The `inputDigest` to send with an answer, or undefined when that answer must not be
 * sent. Only a pending approval is answered. Approve sends the digest recomputed from
 * what is shown, and only when it matches. Deny is always possible while pending: with
 * the recomputed digest when it matches, else with the approval's own digest, since the
 * host refuses any answer whose digest differs (`digest_mismatch`) and a refusal of what
 * the host asked about is safe whatever the card shows.
 */
export function answerDigest(
  approval: Pick<Approval, 'state' | 'inputDigest'>,
  check: ApprovalCheck,
  decision: 'approve' | 'deny',
): string | undefined {
  if (approval.state !== 'pending') return undefined;
  if (check.matches && check.digest !== undefined) return check.digest;
  return decision === 'deny' ? approval.inputDigest : undefined;
}
