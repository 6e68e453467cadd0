/**
 * What makes an approval safe to approve (PROTOCOL.md 6.5): the digest recomputed here,
 * from exactly the name, input and workspace the card shows, equals the event's.
 */
import { type Approval, digest } from '../../../../protocol/index.js';

/** `digest({tool, input, workspace})`, as the host computes `inputDigest`. */
export function approvalDigest(name: string, input: unknown, workspace: string): string {
  return digest({ tool: name, input, workspace });
}

/**
 * True when the shown input hashes to the approval's `inputDigest`, and, for a command,
 * the preview shows the command of that input (so the card cannot show one command and
 * approve another).
 */
export function approvalMatches(
  approval: Pick<Approval, 'name' | 'input' | 'inputDigest' | 'preview'>,
  workspace: string,
): boolean {
  let computed: string;
  try {
    computed = approvalDigest(approval.name, approval.input, workspace);
  } catch {
    return false;
  }
  if (computed !== approval.inputDigest) return false;
  const { preview, input } = approval;
  if (preview.kind !== 'command') return true;
  return isRecord(input) && input['command'] === preview.command;
}

/** The field of a tool input as shown text, when it is a string. */
export function inputText(input: unknown, field: string): string | undefined {
  if (!isRecord(input)) return undefined;
  const value = input[field];
  return typeof value === 'string' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
