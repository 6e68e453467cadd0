/**
 * The text of each push (docs/push.md, "What a push says"): a title that says what needs
 * the user and where, and a body as the `push.body` setting allows: `names` the tool and
 * the workspace, `none` nothing, `full` the command or path.
 */
import type { ApprovalPreview, PushKind, PushPayload } from '../../protocol/index.js';
import type { PushBody } from '../config/index.js';
import type { PushHost } from './types.js';

/** A body is cut here: the whole encrypted push must stay under the services' 4 KiB. */
const MAX_BODY_CHARS = 600;

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_BODY_CHARS ? flat : `${flat.slice(0, MAX_BODY_CHARS - 1)}…`;
}

function base(host: PushHost, kind: PushKind, at: number) {
  return { v: 1 as const, kind, hostId: host.hostId, hostName: host.hostName, at };
}

/** What an approval card's preview is about, in one line. */
function subject(preview: ApprovalPreview | undefined): string | null {
  if (preview === undefined) return null;
  switch (preview.kind) {
    case 'command':
      return preview.command;
    case 'write':
      return preview.path;
    case 'path':
      return preview.path;
    case 'mcp':
      return `${preview.tool} (MCP server ${preview.server})`;
    case 'agent':
      return `a tool call of agent ${preview.agent}`;
  }
}

/** The push for `tool.approval_requested`. */
export function approvalPayload(
  host: PushHost,
  mode: PushBody,
  approval: {
    runId: string;
    approvalId: string;
    name: string;
    workspace: string;
    preview: ApprovalPreview | undefined;
  },
  at: number,
): PushPayload {
  const where = host.workspaceName(approval.workspace);
  const what = subject(approval.preview);
  const body =
    mode === 'none'
      ? ''
      : mode === 'full' && what !== null
        ? cut(`${approval.name} in ${where}: ${what}`)
        : cut(`${approval.name} in ${where}`);
  return {
    ...base(host, 'approval', at),
    runId: approval.runId,
    approvalId: approval.approvalId,
    title: `Approval needed on ${host.hostName}`,
    body,
    tag: `approval:${host.hostId}:${approval.approvalId}`,
  };
}

const ENDINGS: Record<string, string> = {
  succeeded: 'Run finished',
  failed: 'Run failed',
  cancelled: 'Run cancelled',
  interrupted: 'Run interrupted',
};

/** The push for a run's `run.finished`. */
export function runEndPayload(
  host: PushHost,
  mode: PushBody,
  kind: PushKind,
  run: {
    runId: string;
    state: string;
    workspace: string | null;
    error: { code: string; message: string } | null;
  },
  at: number,
): PushPayload {
  const where = run.workspace === null ? null : host.workspaceName(run.workspace);
  const parts = [
    where === null ? null : `in ${where}`,
    run.error === null ? null : mode === 'full' ? run.error.message : run.error.code,
  ].filter((part): part is string => part !== null);
  return {
    ...base(host, kind, at),
    runId: run.runId,
    title: `${ENDINGS[run.state] ?? 'Run ended'} on ${host.hostName}`,
    body: mode === 'none' ? '' : cut(parts.join(': ')),
    tag: `run:${host.hostId}:${run.runId}`,
  };
}

/**
 * The push for a worktree run's committed `run.result`: its branch is ready to review.
 * Tagged per branch (its session), so a follow-up's result replaces the notification.
 */
export function reviewPayload(
  host: PushHost,
  mode: PushBody,
  result: {
    runId: string;
    sessionId: string;
    branch: string;
    files: number;
    workspace: string | null;
    task: string;
  },
  at: number,
): PushPayload {
  const where = result.workspace === null ? '' : ` in ${host.workspaceName(result.workspace)}`;
  const changed = `${result.files} file${result.files === 1 ? '' : 's'} changed`;
  const names = `${result.branch}${where}: ${changed}`;
  return {
    ...base(host, 'review', at),
    runId: result.runId,
    title: `Ready to review on ${host.hostName}`,
    body: mode === 'none' ? '' : cut(mode === 'full' ? `${names}. ${result.task}` : names),
    tag: `review:${host.hostId}:${result.sessionId}`,
  };
}

/** The push `push.test` sends. */
export function testPayload(host: PushHost, at: number): PushPayload {
  return {
    ...base(host, 'test', at),
    runId: null,
    title: `Test from ${host.hostName}`,
    body: 'Notifications from this host reach this device.',
    tag: `test:${host.hostId}`,
  };
}
