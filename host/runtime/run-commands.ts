/**
 * Commands that change runs: submit, cancel, continue, reconcile. Each applies once per
 * commandId, in one transaction with its events (docs/protocol.md §6.1).
 */
import {
  TetherError,
  isTerminalRunState,
  type OpArgs,
  type OpResult,
  type RunInput,
} from '../../protocol/index.js';
import { newId, type Store, type StoredRun, type WriteContext } from '../store/index.js';
import {
  cancelPendingApprovals,
  finishRun,
  finishToolCall,
  markSessionIdle,
  moveRun,
} from './transitions.js';
import type { Actor, AgentLauncher, RuntimeLimits, RuntimeModel, WorkspaceRef } from './types.js';
import { giveAttachments } from './attachment-commands.js';
import { freeBranch, type WorktreeSource } from '../worktrees/index.js';
import { checkAgent } from './submit-agent.js';
import { checkFollowUpIsolation, worktreeSourceOf } from './submit-isolation.js';
import { join } from 'node:path';

const CONTINUE_TEXT = 'Continue the previous run from where it stopped.';

export interface CommandContext {
  store: Store;
  model: RuntimeModel | null;
  workspaces: readonly WorkspaceRef[];
  /** Where runs' own worktrees are made; null: `isolation: "worktree"` is refused. */
  worktreesDir: string | null;
  limits: Pick<
    RuntimeLimits,
    'attachmentMaxBytes' | 'runAttachmentsMaxBytes' | 'attachmentDiskReserveBytes'
  >;
  /** The ACP agents a run may be given to; null: none is configured. */
  agents: AgentLauncher | null;
}

function findWorkspace(
  workspaces: readonly WorkspaceRef[],
  requested: string | undefined,
): WorkspaceRef {
  const workspace =
    requested === undefined
      ? workspaces[0]
      : workspaces.find(
          (candidate) => candidate.path === requested || candidate.name === requested,
        );
  if (workspace === undefined) {
    throw new TetherError(
      'workspace_denied',
      `not an allowed workspace: ${requested ?? '(none configured)'}`,
      {
        details: { workspaces: workspaces.map((candidate) => candidate.path) },
      },
    );
  }
  return workspace;
}

function chooseModel(model: RuntimeModel | null, requested: string | undefined): string | null {
  if (model === null) return requested ?? null;
  if (requested === undefined) return model.name;
  if (!model.available.includes(requested)) {
    throw new TetherError('invalid_request', `unknown model: ${requested}`, {
      details: { issues: [{ path: 'model', message: `one of ${model.available.join(', ')}` }] },
    });
  }
  return requested;
}

/** Eight characters of a host id, for a branch name: `run_3q2xAbCd…` → `3q2xabcd`-like. */
function shortId(id: string): string {
  const start = id.indexOf('_') + 1;
  return id
    .slice(start, start + 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');
}

function titleOf(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}

function queueRun(
  ctx: CommandContext,
  tx: WriteContext,
  fields: {
    runId?: string;
    sessionId: string;
    input: RunInput;
    model: string | null;
    commandId: string;
    by: Actor;
    continuesRunId: string | null;
    agent?: string;
  },
): StoredRun {
  const { store, limits } = ctx;
  const run: StoredRun = {
    id: fields.runId ?? newId('run'),
    sessionId: fields.sessionId,
    state: 'queued',
    input: fields.input,
    model: fields.model,
    createdAt: tx.at,
    startedAt: null,
    finishedAt: null,
    continuesRunId: fields.continuesRunId,
    error: null,
    commandId: fields.commandId,
    createdBy: fields.by,
    idleAt: null,
    ...(fields.agent === undefined ? {} : { agent: fields.agent }),
  };
  store.runs.insertRun(run);
  const attachments = giveAttachments(store, limits, run.id, run.input, fields.by);
  tx.append({
    type: 'run.queued',
    sessionId: run.sessionId,
    runId: run.id,
    payload: {
      input: run.input,
      model: run.model,
      commandId: fields.commandId,
      by: fields.by,
      ...(fields.continuesRunId === null ? {} : { continuesRunId: fields.continuesRunId }),
      ...(attachments.length === 0 ? {} : { attachments }),
      // The agent that works the run, and what the sandbox holds of it (docs/agents.md).
      ...(fields.agent === undefined
        ? {}
        : {
            agent: fields.agent,
            agentSandbox: ctx.agents?.scope(
              fields.agent,
              store.runs.getSession(fields.sessionId)?.workspace ?? '',
            ),
          }),
    },
  });
  return run;
}

export function submitRun(
  ctx: CommandContext,
  args: OpArgs<'run.submit'>,
  by: Actor,
): OpResult<'run.submit'> {
  const { store } = ctx;
  const { result, deduplicated } = store.applyCommand(
    { commandId: args.commandId, op: 'run.submit', args, deviceId: by },
    (tx) => {
      let sessionId = args.sessionId;
      let worktree: { source: WorktreeSource } | null = null;
      const agent = checkAgent(ctx.agents, store, args, sessionId);
      if (sessionId === undefined) {
        const workspace = findWorkspace(ctx.workspaces, args.workspace);
        worktree = worktreeSourceOf(ctx.worktreesDir, workspace, args);
        sessionId = newId('ses');
        const session = {
          id: sessionId,
          title: titleOf(args.input.text),
          workspace: workspace.path,
          createdAt: tx.at,
          activeRunId: null,
        };
        store.runs.insertSession(session);
      } else {
        const session = store.runs.getSession(sessionId);
        if (session === undefined) throw new TetherError('not_found', `no session ${sessionId}`);
        if (
          args.workspace !== undefined &&
          findWorkspace(ctx.workspaces, args.workspace).path !== session.workspace
        ) {
          throw new TetherError('invalid_request', 'the session belongs to another workspace', {
            details: {
              issues: [{ path: 'workspace', message: `the session's is ${session.workspace}` }],
            },
          });
        }
        checkFollowUpIsolation(store, session.id, args);
      }
      const runId = newId('run');
      if (args.sessionId === undefined) {
        const session = store.runs.getSession(sessionId)!;
        const branch =
          worktree === null
            ? null
            : freeBranch(worktree.source.repository, `tether/${shortId(runId)}`);
        if (worktree !== null && branch !== null && ctx.worktreesDir !== null) {
          store.worktrees.insert({
            sessionId,
            ...worktree.source,
            path: join(ctx.worktreesDir, sessionId),
            branch,
            state: 'active',
            createdAt: tx.at,
          });
        }
        tx.append({
          type: 'session.created',
          sessionId,
          payload: {
            title: session.title,
            workspace: session.workspace,
            ...(worktree === null || branch === null
              ? {}
              : { worktree: { branch, base: worktree.source.base } }),
          },
        });
      }
      const run = queueRun(ctx, tx, {
        runId,
        sessionId,
        input: args.input,
        // An agent uses the model its own settings name.
        model: agent === undefined ? chooseModel(ctx.model, args.model) : null,
        commandId: args.commandId,
        by,
        continuesRunId: null,
        ...(agent === undefined ? {} : { agent }),
      });
      return { runId: run.id, sessionId, state: run.state, deduplicated: false };
    },
  );
  return { ...result, deduplicated };
}

/**
 * Records the cancel. A queued run ends at once; a running or waiting one becomes
 * `cancelling` and the caller stops its executor; a finished run answers its final state.
 */
export function cancelRun(
  ctx: CommandContext,
  args: OpArgs<'run.cancel'>,
  by: Actor,
): OpResult<'run.cancel'> {
  const { store } = ctx;
  return store.applyCommand(
    { commandId: args.commandId, op: 'run.cancel', args, deviceId: by },
    (tx) => {
      const run = store.runs.getRun(args.runId);
      if (run === undefined) throw new TetherError('not_found', `no run ${args.runId}`);
      if (isTerminalRunState(run.state) || run.state === 'cancelling') return { state: run.state };
      tx.append({
        type: 'run.cancel_requested',
        sessionId: run.sessionId,
        runId: run.id,
        payload: { by },
      });
      if (run.state === 'queued') {
        finishRun(store, run, 'cancelled', tx, { reason: 'cancelled before it started' });
        return { state: 'cancelled' as const };
      }
      moveRun(store, run, 'cancelling', tx);
      return { state: 'cancelling' as const };
    },
  ).result;
}

export function continueRun(
  ctx: CommandContext,
  args: OpArgs<'run.continue'>,
  by: Actor,
): OpResult<'run.continue'> {
  const { store } = ctx;
  return store.applyCommand(
    { commandId: args.commandId, op: 'run.continue', args, deviceId: by },
    (tx) => {
      const previous = store.runs.getRun(args.runId);
      if (previous === undefined) throw new TetherError('not_found', `no run ${args.runId}`);
      if (!['interrupted', 'failed', 'cancelled'].includes(previous.state)) {
        throw new TetherError(
          'invalid_state',
          `run ${previous.id} is ${previous.state}: only an interrupted, failed or cancelled run can be continued`,
          {
            details: { state: previous.state },
          },
        );
      }
      const run = queueRun(ctx, tx, {
        sessionId: previous.sessionId,
        input: args.input ?? { text: CONTINUE_TEXT },
        model: previous.model,
        commandId: args.commandId,
        by,
        continuesRunId: previous.id,
        ...(previous.agent === undefined ? {} : { agent: previous.agent }),
      });
      return { runId: run.id };
    },
  ).result;
}

/** Records the user's verdict on a tool call left `unknown`, as a new event. */
export function reconcileToolCall(
  ctx: CommandContext,
  args: OpArgs<'toolcall.reconcile'>,
  by: Actor,
): OpResult<'toolcall.reconcile'> {
  const { store } = ctx;
  return store.applyCommand(
    { commandId: args.commandId, op: 'toolcall.reconcile', args, deviceId: by },
    (tx) => {
      const call = store.tools.getToolCall(args.toolCallId);
      if (call === undefined) throw new TetherError('not_found', `no tool call ${args.toolCallId}`);
      if (call.state !== 'unknown') {
        throw new TetherError(
          'invalid_state',
          `tool call ${call.id} is ${call.state}, not unknown`,
          {
            details: { state: call.state },
          },
        );
      }
      const verdict = {
        outcome: args.outcome,
        by,
        ...(args.note === undefined ? {} : { note: args.note }),
      };
      store.tools.updateToolCall(call.id, {
        result: { ...call.result, reconciled: { ...verdict, at: tx.at } },
      });
      tx.append({
        type: 'tool.reconciled',
        sessionId: store.runs.getRun(call.runId)?.sessionId ?? null,
        runId: call.runId,
        toolCallId: call.id,
        payload: verdict,
      });
      return {};
    },
  ).result;
}

/** Ends a `cancelling` run that has no executor (it was waiting when the host started). */
export function settleCancelledRun(store: Store, runId: string): void {
  const run = store.runs.getRun(runId);
  if (run?.state !== 'cancelling') return;
  store.write((tx) => {
    cancelPendingApprovals(store, run, tx);
    for (const call of store.tools.listToolCalls(runId)) {
      if (
        call.state === 'proposed' ||
        call.state === 'waiting_for_approval' ||
        call.state === 'ready'
      ) {
        finishToolCall(
          store,
          call,
          tx,
          { status: 'cancelled', summary: 'the run was cancelled' },
          {
            modelContent: '[not run: the run was cancelled]',
          },
        );
      }
    }
    finishRun(store, run, 'cancelled', tx, { reason: 'cancelled' });
  });
  store.write((tx) => markSessionIdle(store, run, tx));
}
