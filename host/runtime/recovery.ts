/**
 * Recovery at start (ARCHITECTURE.md): what a dead host left half-done is settled honestly.
 * Runs `running`/`cancelling` become `interrupted`; their `running` tool calls become
 * `unknown` (never re-run by themselves), unstarted ones `cancelled`; runs waiting for
 * approval keep waiting; queued runs stay queued; a missing `session.idle` is emitted.
 */
import type { Store } from '../store/index.js';
import { finishRun, finishToolCall, markSessionIdle } from './transitions.js';

export interface RecoveryReport {
  interruptedRuns: string[];
  unknownToolCalls: string[];
  cancelledToolCalls: string[];
  idledRuns: string[];
  /** Process groups of tool calls that were running (and when they started): nobody owns them now. */
  orphanGroups: { pgid: number; startedAt: number | null }[];
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
      for (const call of store.tools.listToolCalls(run.id)) {
        if (call.state === 'running') {
          finishToolCall(
            store,
            call,
            tx,
            {
              status: 'unknown',
              summary:
                'the host stopped while this tool was running; whether it finished is unknown',
            },
            {
              modelContent:
                '[outcome unknown: the host stopped while this tool was running; it may or may not have taken effect]',
            },
          );
          report.unknownToolCalls.push(call.id);
          if (call.processGroup !== null) {
            report.orphanGroups.push({ pgid: call.processGroup, startedAt: call.startedAt });
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
            { status: 'cancelled', summary: 'the host stopped before this tool started' },
            { modelContent: '[not run: the host stopped before this tool started]' },
          );
          report.cancelledToolCalls.push(call.id);
        }
      }
      const interrupted = finishRun(store, run, 'interrupted', tx, {
        reason: 'the host stopped while the run was in progress',
      });
      report.interruptedRuns.push(run.id);
      markSessionIdle(store, interrupted, tx);
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
