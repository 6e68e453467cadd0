/**
 * Runs on a {@link FaultHost} as the tests against the real host drive them: a run whose
 * scripted model proposes one tool call, the approval it waits for as the store holds it,
 * and its end.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FaultHost } from './fault-host.js';
import { textTurn, toolCallTurn } from './scripted-model-server.js';
import { until } from './wait.js';

/** Submits a run whose model proposes one call of `name` with `input`, then says it is done. */
export async function proposeCall(host: FaultHost, name: string, input: unknown): Promise<string> {
  host.model.push(
    toolCallTurn([{ id: `call_${randomUUID()}`, name, arguments: JSON.stringify(input) }]),
    textTurn('Done.'),
  );
  const result = await host.channel.call('run.submit', {
    commandId: randomUUID(),
    input: { text: `use ${name}` },
  });
  return String(result['runId']);
}

/** An approval a run waits for, as the store holds it: what `approval.respond` names. */
export interface PendingApproval {
  id: string;
  toolCallId: string;
  inputDigest: string;
  preview: Record<string, unknown>;
  reason: string;
}

/** The approval `runId` waits for now, if any. */
export function pendingApproval(host: FaultHost, runId: string): PendingApproval | undefined {
  const row = host.query(
    (db) =>
      db
        .prepare(
          "SELECT id, tool_call_id, input_digest, preview_json, reason FROM approvals WHERE run_id = ? AND state = 'pending'",
        )
        .get(runId) as
        | {
            id: string;
            tool_call_id: string;
            input_digest: string;
            preview_json: string;
            reason: string;
          }
        | undefined,
  );
  if (row === undefined) return undefined;
  return {
    id: row.id,
    toolCallId: row.tool_call_id,
    inputDigest: row.input_digest,
    preview: z.record(z.string(), z.unknown()).parse(JSON.parse(row.preview_json)),
    reason: row.reason,
  };
}

/** Resolves with the approval `runId` comes to wait for. */
export function untilApproval(host: FaultHost, runId: string): Promise<PendingApproval> {
  return until(`an approval in ${runId}`, () => pendingApproval(host, runId));
}

/** Resolves once `runId`'s session is idle: the run ended and nothing follows it. */
export function untilIdle(host: FaultHost, runId: string): Promise<true> {
  return until(`session.idle of ${runId}`, () =>
    host.typesOf(runId).includes('session.idle') ? true : undefined,
  );
}
