/**
 * Following runs live (`watch`, `submit --wait`): a summary of the snapshot, then each
 * event's lines, assistant text streamed from previews, and connection trouble; for one
 * run, until it settles. All of it with hidden characters escaped (`visibleText`).
 */
import { type Event, isTerminalRunState, TetherError } from '../../protocol/index.js';
import {
  type ConnectionEvent,
  type HostConnection,
  type HostState,
  type PairedHostSummary,
  pendingApprovals,
  toolCallsOf,
  allowedByText,
  visibleText,
} from '../client/index.js';
import { eventLines, pendingApprovalLines } from './event-lines.js';
import { clip, formatToolInput } from './format.js';
import { connectionError } from './host-session.js';
import type { RemoteContext } from './remote-context.js';

/** What to follow and what to print. */
export interface FollowOptions {
  /** One run (followed until it settles), or every run (until Ctrl-C). */
  runId?: string;
  /** Stream assistant text as it arrives and print each completed message. */
  text: boolean;
}

/** `settled`: the run is over (its `session.idle`, or final when first seen); `interrupted`: Ctrl-C. */
export type FollowEnd = 'settled' | 'interrupted';

/**
 * A run is over at its `session.idle`; a run final when first seen, or cancelled before it
 * started (it never held its session, so no `session.idle` comes), is over at once.
 */
function isSettled(state: HostState, runId: string, idle: boolean, first: boolean): boolean {
  const run = state.runs[runId];
  if (idle) return true;
  if (run === undefined || !isTerminalRunState(run.state)) return false;
  return first || run.startedAt === null;
}

/** The paired devices' names by id (`approved by` names the device); none if the host will not say. */
async function deviceNames(
  connection: HostConnection,
  signal: AbortSignal,
): Promise<Map<string, string>> {
  try {
    const { devices } = await connection.request('devices.list', {}, { signal });
    return new Map(devices.map((device) => [device.deviceId, device.name]));
  } catch {
    return new Map();
  }
}

/** Follows `options.runId` (or everything) on an open connection. */
export async function followRuns(
  connection: HostConnection,
  host: PairedHostSummary,
  ctx: RemoteContext,
  options: FollowOptions,
): Promise<FollowEnd> {
  const names = await deviceNames(connection, ctx.signal);
  if (ctx.signal.aborted) return 'interrupted';
  const { runId, text } = options;
  const store = connection.state;
  const prefix = (id: string | null) => (runId === undefined && id !== null ? `${id}  ` : '');
  /** What has been printed of each run's streaming message. */
  const streamed = new Map<string, { messageId: string; length: number }>();
  /** The run whose text the cursor is in the middle of, if any. */
  let midLine: string | undefined;

  // Everything printed is escaped: a model's text must not move the cursor over a card.
  const line = (text: string) => {
    if (midLine !== undefined) ctx.out('\n');
    midLine = undefined;
    ctx.out(visibleText(text) + '\n');
  };

  const stream = (state: HostState) => {
    for (const [id, preview] of Object.entries(state.previews)) {
      if (runId !== undefined && id !== runId) continue;
      let done = streamed.get(id);
      if (done?.messageId !== preview.messageId) {
        done = { messageId: preview.messageId, length: 0 };
        streamed.set(id, done);
      }
      if (preview.text.length <= done.length) continue;
      if (midLine !== id) {
        if (midLine !== undefined) ctx.out('\n');
        ctx.out(`${prefix(id)}» `);
      }
      ctx.out(visibleText(preview.text.slice(done.length)));
      midLine = id;
      done.length = preview.text.length;
    }
  };

  const complete = (event: Extract<Event, { type: 'message.completed' }>) => {
    const id = event.runId ?? '';
    const done = streamed.get(id);
    streamed.delete(id);
    const { messageId, text: full } = event.payload;
    if (done?.messageId === messageId && midLine === id && done.length <= full.length) {
      ctx.out(visibleText(full.slice(done.length)) + '\n');
      midLine = undefined;
    } else if (full !== '') {
      line(`${prefix(event.runId)}» ${full}`);
    }
  };

  const summarize = (state: HostState) => {
    const runs =
      runId === undefined
        ? Object.values(state.runs).filter((run) => !isTerminalRunState(run.state))
        : Object.values(state.runs).filter((run) => run.id === runId);
    if (runId === undefined) line(`watching ${host.hostName}: ${runs.length} active run(s)`);
    for (const run of runs) {
      line(`${prefix(run.id)}${run.state}: ${clip(run.input.text)}`);
      // Tool calls and messages in the order they happened (a message's tool calls start
      // after it was completed), as they were shown live.
      const told = toolCallsOf(state, run.id).map((call) => ({
        at: call.startedAt ?? call.finishedAt ?? Number.MAX_SAFE_INTEGER,
        text:
          `${prefix(run.id)}tool ${call.name} ${formatToolInput(call.input)}: ${call.state}` +
          (call.allowedBy === undefined ? '' : ` (${allowedByText(call.allowedBy)})`),
      }));
      if (text && runId !== undefined) {
        for (const message of state.messages[run.id] ?? []) {
          if (message.text !== '') told.push({ at: message.createdAt, text: `» ${message.text}` });
        }
      }
      for (const item of told.sort((a, b) => a.at - b.at)) line(item.text);
    }
    for (const approval of pendingApprovals(state)) {
      if (runId !== undefined && approval.runId !== runId) continue;
      for (const shown of pendingApprovalLines(approval)) line(`${prefix(approval.runId)}${shown}`);
    }
  };

  return new Promise<FollowEnd>((resolve, reject) => {
    const subscription = connection.subscribeEvents(runId === undefined ? {} : { runId });
    let lost = false;
    let finished = false;
    const cleanups: (() => void)[] = [];
    const finish = (end: FollowEnd | TetherError) => {
      if (finished) return;
      finished = true;
      for (const cleanup of cleanups) cleanup();
      subscription.close();
      if (midLine !== undefined) ctx.out('\n');
      if (end instanceof TetherError) reject(end);
      else resolve(end);
    };
    const onAbort = () => finish('interrupted');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => ctx.signal.removeEventListener('abort', onAbort));
    cleanups.push(
      connection.on((event: ConnectionEvent) => {
        if (event.type === 'hostRestarted') line(`${host.hostName} restarted`);
        if (event.type !== 'status') return;
        const { status } = event;
        if (status.state === 'stopped') finish(connectionError(host, status));
        if (status.state === 'waiting' && !lost) {
          lost = true;
          ctx.err(`connection lost (${status.error.message}); reconnecting…\n`);
        }
        if (status.state === 'open' && lost) {
          lost = false;
          ctx.err('reconnected\n');
        }
      }),
    );
    cleanups.push(
      subscription.onEvents((events) => {
        const state = store.state;
        for (const event of events) {
          if (finished) return;
          if (runId !== undefined && event.runId !== runId) continue;
          if (event.type === 'message.completed' && text) complete(event);
          for (const shown of eventLines(event, state, names)) {
            line(`${prefix(event.runId)}${shown}`);
          }
          const idle = event.type === 'session.idle';
          if (runId !== undefined && isSettled(state, runId, idle, false)) finish('settled');
        }
      }),
    );
    subscription.ready.then(
      () => {
        if (finished) return;
        const state = store.state;
        summarize(state);
        if (runId !== undefined && isSettled(state, runId, false, true)) return finish('settled');
        if (!text) return;
        stream(state);
        cleanups.push(store.subscribe(stream));
      },
      (error: unknown) => finish(TetherError.from(error)),
    );
  });
}
