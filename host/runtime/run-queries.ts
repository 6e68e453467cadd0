/**
 * Reads for remotes: runs, sessions, outputs and snapshots, each in one read transaction.
 */
import {
  TetherError,
  type OpArgs,
  type OpResult,
  type RunChanges,
  type RunGetResult,
  type ToolAccessKind,
  type UnscopedSnapshot,
} from '../../protocol/index.js';
import { readFilePage, type PageCursor, type Store, type StoredToolCall } from '../store/index.js';
import { attachmentRecord } from './attachment-commands.js';
import type { LiveHub } from './live-hub.js';
import { devicesWithPush } from './device-commands.js';
import {
  artifactRecord,
  messageRecord,
  runRecord,
  summaryRecord,
  toolCallRecord,
} from './records.js';
import { runChanges } from './run-changes.js';
import { tokenUsage } from './run-usage.js';
import type { Actor, ModelPrices, ToolTable } from './types.js';

const DEFAULT_PAGE = 50;

function encodeCursor(row: { createdAt: number; id: string }): string {
  return `${row.createdAt}.${row.id}`;
}

function decodeCursor(cursor: string | undefined): PageCursor | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(\d{1,16})\.(.+)$/.exec(cursor);
  if (match === null) {
    throw new TetherError('invalid_request', `invalid page cursor: ${cursor}`, {
      details: { issues: [{ path: 'before', message: 'not a cursor this host made' }] },
    });
  }
  return { createdAt: Number(match[1]), id: match[2]! };
}

/** Pages of `runs.list` kept between two commits. */
const MAX_KEPT_PAGES = 32;

export class RunQueries {
  private readonly pages = new Map<string, OpResult<'runs.list'>>();
  private pagesAt = -1;

  constructor(
    private readonly store: Store,
    private readonly live: LiveHub,
    private readonly tools: ToolTable,
    private readonly prices: ModelPrices = {},
  ) {}

  getRun(runId: string): RunGetResult {
    const { store } = this;
    return store.read(() => {
      const run = store.runs.getRun(runId);
      if (run === undefined) throw new TetherError('not_found', `no run ${runId}`);
      const live = this.live.snapshot(runId);
      const attachments = store.attachments.listOfRun(runId).map(attachmentRecord);
      return {
        run: runRecord(run),
        messages: store.runs.listMessages(runId).map(messageRecord),
        toolCalls: store.tools
          .listToolCalls(runId)
          .map((call) => toolCallRecord(call, this.accessOf(call))),
        approvals: store.tools.listApprovals({ runId }),
        artifacts: store.tools.listArtifacts(runId).map(artifactRecord),
        summaries: store.summaries.listOfRun(runId).map(summaryRecord),
        ...(attachments.length === 0 ? {} : { attachments }),
        ...(live === undefined ? {} : { live }),
        cursor: store.events.head(),
      };
    });
  }

  /** The files the run's writes changed and the commands it started. */
  changes(runId: string): RunChanges {
    const { store } = this;
    return store.read(() => {
      if (store.runs.getRun(runId) === undefined) {
        throw new TetherError('not_found', `no run ${runId}`);
      }
      // Writes list as files, commands as commands; a call of a tool the host no longer
      // has is left out.
      return runChanges(
        runId,
        store.tools.listToolCalls(runId),
        store.tools.listArtifacts(runId),
        (call) => this.accessOf(call),
      );
    });
  }

  /** What a stored call touches, as its tool declares it; undefined for a tool gone since. */
  private accessOf(call: StoredToolCall): ToolAccessKind | undefined {
    const tool = this.tools.get(call.name);
    const parsed = tool?.input.safeParse(call.input);
    return tool !== undefined && parsed?.success === true
      ? tool.access(parsed.data).kind
      : undefined;
  }

  /** Tokens of the run and of its whole session, with a cost where prices are configured. */
  usage(runId: string): OpResult<'run.usage'> {
    const { store } = this;
    return store.read(() => {
      const run = store.runs.getRun(runId);
      if (run === undefined) throw new TetherError('not_found', `no run ${runId}`);
      return {
        run: tokenUsage(store.usage.ofRun(runId), this.prices),
        session: tokenUsage(store.usage.ofSession(run.sessionId), this.prices),
      };
    });
  }

  /**
   * `runs.list`, answered again from the last answers to the same args while nothing was
   * committed since (screens and devices ask for the same page over and over).
   */
  listRuns(args: OpArgs<'runs.list'>): OpResult<'runs.list'> {
    if (this.pagesAt !== this.store.commits) {
      this.pages.clear();
      this.pagesAt = this.store.commits;
    }
    const key = JSON.stringify(args);
    let page = this.pages.get(key);
    if (page === undefined) {
      page = this.readRunsPage(args);
      if (this.pages.size < MAX_KEPT_PAGES) this.pages.set(key, page);
    }
    return page;
  }

  private readRunsPage(args: OpArgs<'runs.list'>): OpResult<'runs.list'> {
    const limit = args.limit ?? DEFAULT_PAGE;
    const runs = this.store.runs.listRuns({
      limit: limit + 1,
      ...(args.sessionId === undefined ? {} : { sessionId: args.sessionId }),
      ...(args.states === undefined ? {} : { states: args.states }),
      ...(args.before === undefined ? {} : { before: decodeCursor(args.before) }),
      ...(args.query === undefined ? {} : { query: args.query }),
    });
    const page = runs.slice(0, limit);
    const last = page.at(-1);
    return {
      runs: page.map(runRecord),
      ...(runs.length > limit && last !== undefined ? { next: encodeCursor(last) } : {}),
    };
  }

  listSessions(args: OpArgs<'sessions.list'>): OpResult<'sessions.list'> {
    const limit = args.limit ?? DEFAULT_PAGE;
    const sessions = this.store.runs.listSessions(limit + 1, decodeCursor(args.before));
    const page = sessions.slice(0, limit);
    const last = page.at(-1);
    return {
      sessions: page,
      ...(sessions.length > limit && last !== undefined ? { next: encodeCursor(last) } : {}),
    };
  }

  readOutput(args: OpArgs<'output.read'>): OpResult<'output.read'> {
    const call = this.store.tools.getToolCall(args.toolCallId);
    if (call === undefined) throw new TetherError('not_found', `no tool call ${args.toolCallId}`);
    if (call.output === null) {
      throw new TetherError('not_found', `tool call ${args.toolCallId} has no output (yet)`);
    }
    return readFilePage(call.output, args.offset, args.limit);
  }

  readArtifact(args: OpArgs<'artifact.read'>): OpResult<'artifact.read'> {
    const artifact = this.store.tools.getArtifact(args.artifactId);
    if (artifact === undefined)
      throw new TetherError('not_found', `no artifact ${args.artifactId}`);
    const file = {
      path: artifact.path,
      bytes: artifact.bytes,
      sha256: artifact.sha256,
      truncated: false,
    };
    return readFilePage(file, args.offset, args.limit);
  }

  /** Sessions, active and recent runs, pending approvals and devices, as of `head`. */
  overview(by: Actor): UnscopedSnapshot {
    const { store } = this;
    const active = store.runs.listRuns({
      states: ['queued', 'running', 'waiting_for_approval', 'cancelling'],
      limit: 200,
    });
    const recent = store.runs.listRuns({ limit: 50 });
    const runs = [...active, ...recent.filter((run) => !active.some((a) => a.id === run.id))];
    return {
      sessions: store.runs.listSessions(50),
      runs: runs.map(runRecord),
      pendingApprovals: store.tools.listApprovals({ state: 'pending' }),
      devices: devicesWithPush(store, by),
    };
  }

  sessionOverview(sessionId: string): Record<string, unknown> {
    const { store } = this;
    const session = store.runs.getSession(sessionId);
    if (session === undefined) throw new TetherError('not_found', `no session ${sessionId}`);
    const runs = store.runs.listRuns({ sessionId, limit: 50 });
    return {
      session,
      runs: runs.map(runRecord),
      pendingApprovals: store.tools
        .listApprovals({ state: 'pending' })
        .filter((approval) => runs.some((run) => run.id === approval.runId)),
    };
  }
}
