import { describe, expect, it } from 'vitest';
import { type Approval, digest } from '../../protocol/index.js';
import { answerDigest, checkApproval } from '../../remote/app/src/logic/approval-check.js';

const workspace = '/Users/me/project';
const input = { command: 'make test' };
const hostDigest = digest({ tool: 'run_command', input, workspace });

function approval(overrides: Partial<Approval> = {}): Approval {
  return {
    id: 'apr_1',
    toolCallId: 'tc_1',
    runId: 'run_1',
    state: 'pending',
    name: 'run_command',
    input,
    workspace,
    inputDigest: hostDigest,
    preview: { kind: 'command', command: input.command, cwd: workspace },
    reason: 'needs approval',
    expiresAt: 0,
    decidedBy: null,
    ...overrides,
  };
}

describe('checkApproval', () => {
  it('recomputes the digest from the shown name, input and workspace', () => {
    expect(checkApproval(approval(), workspace)).toEqual({ digest: hostDigest, matches: true });
    const shown = { command: 'rm -rf ~' };
    expect(checkApproval(approval({ input: shown }), workspace)).toEqual({
      digest: digest({ tool: 'run_command', input: shown, workspace }),
      matches: false,
    });
    expect(checkApproval(approval({ name: 'write_file' }), workspace).matches).toBe(false);
    expect(checkApproval(approval(), '/Users/me').matches).toBe(false);
  });
});

describe('answerDigest', () => {
  it('approves a pending, matching approval with the digest recomputed from what is shown', () => {
    // A check whose digest differs from the event's proves which one is sent.
    const check = { digest: 'sha256:recomputed', matches: true };
    expect(answerDigest(approval(), check, 'approve')).toBe('sha256:recomputed');
    expect(answerDigest(approval(), check, 'deny')).toBe('sha256:recomputed');
  });

  it('never approves when the shown input does not match', () => {
    const shown = approval({ input: { command: 'rm -rf ~' } });
    const check = checkApproval(shown, workspace);
    expect(answerDigest(shown, check, 'approve')).toBeUndefined();
    expect(answerDigest(shown, { digest: undefined, matches: true }, 'approve')).toBeUndefined();
  });

  it('still denies a mismatching approval, with the digest the host will accept', () => {
    const shown = approval({ input: { command: 'rm -rf ~' } });
    expect(answerDigest(shown, checkApproval(shown, workspace), 'deny')).toBe(hostDigest);
  });

  it('answers nothing once the approval is resolved', () => {
    for (const state of ['approved', 'denied', 'expired', 'cancelled'] as const) {
      const resolved = approval({ state, decidedBy: 'dev_other' });
      const check = checkApproval(resolved, workspace);
      expect(check.matches).toBe(true);
      expect(answerDigest(resolved, check, 'approve')).toBeUndefined();
      expect(answerDigest(resolved, check, 'deny')).toBeUndefined();
    }
  });
});

describe("checkApproval's verdict", () => {
  const matches = (shown: Approval, at: string) => checkApproval(shown, at).matches;

  it('matches only when the shown input hashes to the event digest', () => {
    expect(matches(approval(), workspace)).toBe(true);
    expect(matches(approval({ input: { ...input, command: 'rm -rf /' } }), workspace)).toBe(false);
    expect(matches(approval(), '/elsewhere')).toBe(false);
    expect(matches(approval({ inputDigest: `sha256:${'0'.repeat(64)}` }), workspace)).toBe(false);
  });

  it('refuses a command preview that is not the input command', () => {
    const shown = approval({ preview: { kind: 'command', command: 'ls', cwd: workspace } });
    expect(matches(shown, workspace)).toBe(false);
  });
});
