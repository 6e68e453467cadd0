/**
 * `tether remote submit "<task>"`: starts a run through the outbox; `--wait` follows it to
 * the end as `watch` does (tool calls, approvals, the answer streamed), then prints its
 * final state.
 */
import { AgentInfo, TetherError } from '../../protocol/index.js';
import type { HostConnection } from '../client/index.js';
import { parseCommandArgs, UsageError } from '../../common/cli/index.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';
import { followRuns } from './run-follower.js';
import { sendCommand } from './send-command.js';
import { readAttachment, sendAttachment } from './attachment-upload.js';

/** The usage text of `submit`, for `--help` and command-line errors. */
export const SUBMIT_USAGE = `Usage: tether remote submit "<task>" [--workspace DIR] [--model M] [--wait]
                            [--attach FILE]… [--worktree [--base REF]] [--agent NAME]
                            [--host HOSTID] [--state FILE]

Starts a run of <task> in a new session on the host.

Options:
  --workspace DIR   one of the host's workspaces, by path or name (default: its first)
  --model M         one of the host's models (default: its configured one)
  --wait            follow the run to its end; exit 0 only if it succeeded
  --attach FILE     send FILE with the task (repeat for more): images go to the model as
                    images, small text files inline, others as read-only files it can
                    read; sent in chunks, and sending it again resumes (docs/attachments.md)
  --worktree        work on a branch of its own (tether/<runId>) in a git worktree of the
                    workspace's repository, never in your checkout; the host commits what
                    it did when it ends; answer with tether remote review <runId>: merge,
                    keep the branch, or discard
  --base REF        with --worktree: the branch, tag or commit it starts from (default HEAD)
  --agent NAME      give the task to one of the host's ACP agents (Claude Code, Codex, …:
                    docs/agents.md) instead of Tether's own loop; its permission requests
                    are approvals like any other
`;

const FLAGS = {
  ...STATE_FLAG,
  ...HOST_FLAG,
  workspace: { type: 'string' },
  model: { type: 'string' },
  wait: { type: 'boolean' },
  worktree: { type: 'boolean' },
  base: { type: 'string' },
  agent: { type: 'string' },
  attach: { type: 'string', multiple: true },
} as const;

/**
 * A refused workspace or model as a sentence that lists what the host does offer (from
 * `host.info`); any other error as it is.
 */
async function withValidValues(
  connection: HostConnection,
  ctx: RemoteContext,
  values: {
    workspace?: string | undefined;
    model?: string | undefined;
    agent?: string | undefined;
  },
  error: unknown,
): Promise<unknown> {
  if (!(error instanceof TetherError)) return error;
  const badWorkspace = error.code === 'workspace_denied' && values.workspace !== undefined;
  const badModel =
    error.code === 'invalid_request' && values.model !== undefined && /model/i.test(error.message);
  const badAgent =
    error.code === 'invalid_request' &&
    values.agent !== undefined &&
    /no agent named/.test(error.message);
  if (!badWorkspace && !badModel && !badAgent) return error;
  let info: { workspaces: { name: string; path: string }[]; models: string[]; agents?: unknown };
  try {
    info = await connection.request('host.info', {}, { signal: ctx.signal });
  } catch {
    return error;
  }
  if (badAgent) {
    const agents = agentNames(info.agents);
    const message = `The host has no agent ${values.agent}. ${agents.length === 0 ? 'It has no agents configured (agents in its config file: docs/agents.md).' : `Its agents are ${agents.join(', ')}: pass one of them with --agent, or leave --agent out for Tether's own loop.`}`;
    return new TetherError(error.code, message, { cause: error });
  }
  const message = badWorkspace
    ? `The host does not allow the workspace ${values.workspace}. Its workspaces are ${info.workspaces.map((workspace) => `${workspace.name} (${workspace.path})`).join(', ')}: pass one of them with --workspace, by name or path.`
    : `The host has no model ${values.model}. ${info.models.length === 0 ? 'It has no model configured.' : `Its models are ${info.models.join(', ')}: pass one of them with --model, or leave --model out for its default.`}`;
  return new TetherError(error.code, message, { cause: error });
}

/** The names of `host.info.agents`, each checked (`AgentInfo`); [] without any. */
function agentNames(agents: unknown): string[] {
  if (!Array.isArray(agents)) return [];
  return agents.flatMap((item: unknown) => {
    const parsed = AgentInfo.safeParse(item);
    return parsed.success ? [parsed.data.name] : [];
  });
}

/** Runs `tether remote submit`; resolves with the exit code. */
export async function submitCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { required: ['"<task>"'] });
  if (help) {
    ctx.out(SUBMIT_USAGE);
    return 0;
  }
  if (values.base !== undefined && values.worktree !== true) {
    throw new UsageError('--base is for a run in its own worktree: add --worktree');
  }
  const files = (values.attach ?? []).map(readAttachment);
  return withHost(ctx, values, async (connection, host) => {
    const attachments: string[] = [];
    for (const file of files) {
      attachments.push(await sendAttachment(connection, ctx, file));
      ctx.err(`sent ${file.name} (${file.mediaType}, ${file.bytes.length} bytes)\n`);
    }
    let submitted: { runId: string; sessionId: string; state: string };
    try {
      submitted = await sendCommand(connection, ctx, 'run.submit', {
        input: { text: positionals[0]!, ...(attachments.length === 0 ? {} : { attachments }) },
        ...(values.workspace === undefined ? {} : { workspace: values.workspace }),
        ...(values.model === undefined ? {} : { model: values.model }),
        ...(values.worktree === true ? { isolation: 'worktree' as const } : {}),
        ...(values.base === undefined ? {} : { base: values.base }),
        ...(values.agent === undefined ? {} : { agent: values.agent }),
      });
    } catch (error) {
      throw await withValidValues(connection, ctx, values, error);
    }
    const { runId, sessionId, state } = submitted;
    ctx.out(`run ${runId} ${state} (session ${sessionId})\n`);
    if (values.wait !== true) {
      if (values.worktree === true)
        ctx.out(`review it once it ends: tether remote review ${runId}\n`);
      return 0;
    }
    const end = await followRuns(connection, host, ctx, { runId, text: true });
    if (end === 'interrupted') {
      ctx.err(`stopped waiting; the run goes on: tether remote watch ${runId}\n`);
      return 130;
    }
    const run = connection.state.state.runs[runId];
    const error =
      run?.error === null || run?.error === undefined
        ? ''
        : ` (${run.error.code}: ${run.error.message})`;
    ctx.out(`run ${runId} ${run?.state ?? 'unknown'}${error}\n`);
    if (values.worktree === true) ctx.out(`review its branch: tether remote review ${runId}\n`);
    return run?.state === 'succeeded' ? 0 : 1;
  });
}
