/**
 * Recovery at start (docs/architecture.md, "Host lifecycle"): what a dead host left half-done is settled honestly.
 * Runs `running`/`cancelling` become `interrupted`; their `running` tool calls become
 * `unknown` (never re-run by themselves), unstarted ones `cancelled`; runs waiting for
 * approval keep waiting; queued runs stay queued; a missing `session.idle` is emitted.
 * An interrupted run's approvals still pending (it was being cancelled) are cancelled.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import type { OutputFile, Store, StoredRun, WriteContext } from '../store/index.js';
import {
  cancelPendingApprovals,
  finishRun,
  finishToolCall,
  markSessionIdle,
} from './transitions.js';

/**
 * The output file a tool left when the host died before its result committed, described
 * so `output.read` serves it for the user to judge. Whether it was cut at the cap is not
 * known any more; it says `truncated: false`.
 */
function leftOutput(store: Store, toolCallId: string): OutputFile | null {
  const path = store.outputPath(toolCallId);
  if (!existsSync(path)) return null;
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1024 * 1024);
  const fd = openSync(path, 'r');
  let bytes = 0;
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      hash.update(buffer.subarray(0, read));
      bytes += read;
    }
  } finally {
    closeSync(fd);
  }
  return { path, bytes, sha256: hash.digest('hex'), truncated: false };
}

export interface RecoveryReport {
  interruptedRuns: string[];
  unknownToolCalls: string[];
  cancelledToolCalls: string[];
  idledRuns: string[];
  /**
   * Process groups of tool calls a dead host left running: nobody owns them now. They are
   * also recorded in the store (`store.orphanGroups`) until the host has tried to kill them.
   */
  orphanGroups: { pgid: number; startedAt: number | null }[];
}

/**
 * Settles a run whose execution ended without recording how: `interrupted`, then idle.
 * `groupsLeft`: whether its running commands may still be alive (a dead host's are; those
 * of a run the host stopped itself were stopped and reaped before it got here).
 */
function settleStrandedRun(
  store: Store,
  run: StoredRun,
  tx: WriteContext,
  report: RecoveryReport,
  why: string,
  groupsLeft: boolean,
): void {
  cancelPendingApprovals(store, run, tx);
  for (const call of store.tools.listToolCalls(run.id)) {
    if (call.state === 'running') {
      finishToolCall(
        store,
        call,
        tx,
        {
          status: 'unknown',
          summary: `${why} while this tool was running; whether it finished is unknown`,
        },
        {
          modelContent: `[outcome unknown: ${why} while this tool was running; it may or may not have taken effect]`,
          output: leftOutput(store, call.id),
        },
      );
      report.unknownToolCalls.push(call.id);
      if (groupsLeft && call.processGroup !== null) {
        const group = { pgid: call.processGroup, startedAt: call.startedAt };
        store.orphanGroups.add({ ...group, toolCallId: call.id });
        report.orphanGroups.push(group);
      }
    } else if (
      call.state === 'proposed' ||
      call.state === 'ready' ||
      call.state === 'waiting_for_approval'
    ) {
      finishToolCall(
        store,
        call,
        tx,
        { status: 'cancelled', summary: `${why} before this tool started` },
        { modelContent: `[not run: ${why} before this tool started]` },
      );
      report.cancelledToolCalls.push(call.id);
    }
  }
  const interrupted = finishRun(store, run, 'interrupted', tx, {
    reason: `${why} while the run was in progress`,
  });
  report.interruptedRuns.push(run.id);
  markSessionIdle(store, interrupted, tx);
}

export function recover(store: Store, instance: string): RecoveryReport {
  return store.write((tx) => {
    const report: RecoveryReport = {
      interruptedRuns: [],
      unknownToolCalls: [],
      cancelledToolCalls: [],
      idledRuns: [],
      orphanGroups: [],
    };
    const stranded = store.runs.listRuns({
      states: ['running', 'cancelling'],
      limit: 10_000,
      order: 'oldest',
    });
    for (const run of stranded) {
      settleStrandedRun(store, run, tx, report, 'the host stopped', true);
    }
    // Finished before the host died, but session.idle was never recorded.
    for (const run of store.runs.listRunsAwaitingIdle()) {
      markSessionIdle(store, run, tx);
      report.idledRuns.push(run.id);
    }
    tx.append({
      type: 'host.started',
      payload: { instance, interruptedRuns: report.interruptedRuns },
    });
    return report;
  });
}

/**
 * The same settling for the runs whose execution the host stopped because commits failed
 * (persistence-health.ts), inside the transaction that reopens the store: their state is
 * what was last committed, exactly as after a crash.
 */
export function recoverStoppedRuns(
  store: Store,
  runIds: Iterable<string>,
  tx: WriteContext,
): RecoveryReport {
  const report: RecoveryReport = {
    interruptedRuns: [],
    unknownToolCalls: [],
    cancelledToolCalls: [],
    idledRuns: [],
    orphanGroups: [],
  };
  for (const runId of runIds) {
    const run = store.runs.getRun(runId);
    if (run === undefined || (run.state !== 'running' && run.state !== 'cancelling')) continue;
    settleStrandedRun(store, run, tx, report, 'the store could not commit', false);
  }
  for (const run of store.runs.listRunsAwaitingIdle()) {
    markSessionIdle(store, run, tx);
    report.idledRuns.push(run.id);
  }
  return report;
}
