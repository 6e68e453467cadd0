/**
 * One model request of a run: records `model.request` and each `model.retry`, streams
 * previews as ephemeral messages, and returns the completed message or the failure.
 */
import type {
  ModelAdapter,
  ModelCompletion,
  ModelFailure,
  ModelRequest,
  ModelStreamEvent,
} from '../model/index.js';
import { faultPoint } from '../faults/index.js';
import { newId, type Store, type StoredRun } from '../store/index.js';
import type { LiveHub } from './live-hub.js';

export type TurnOutcome =
  | { kind: 'completed'; messageId: string; completion: ModelCompletion }
  | { kind: 'failed'; failure: ModelFailure };

export interface ModelTurnContext {
  store: Store;
  adapter: ModelAdapter;
  live: LiveHub;
  signal: AbortSignal;
}

/** Records `model.retry`: the request is about to be sent again. */
export function recordRetry(
  store: Store,
  run: StoredRun,
  event: Extract<ModelStreamEvent, { type: 'retry' }>,
): void {
  store.write((tx) =>
    tx.append({
      type: 'model.retry',
      sessionId: run.sessionId,
      runId: run.id,
      payload: {
        attempt: event.attempt,
        maxAttempts: event.maxAttempts,
        delayMs: Math.round(event.delayMs),
        reason: event.reason,
        ...(event.status === undefined ? {} : { status: event.status }),
      },
    }),
  );
}

export async function runModelTurn(
  ctx: ModelTurnContext,
  run: StoredRun,
  index: number,
  request: ModelRequest,
): Promise<TurnOutcome> {
  const { store, live } = ctx;
  store.write((tx) =>
    tx.append({
      type: 'model.request',
      sessionId: run.sessionId,
      runId: run.id,
      payload: { index, model: request.model },
    }),
  );
  // Each attempt streams under its own message id, so a preview never mixes two attempts.
  let messageId = newId('msg');
  live.beginMessage(run.id, messageId);
  try {
    for await (const event of ctx.adapter.stream(request, ctx.signal)) {
      faultPoint('model-stream');
      switch (event.type) {
        case 'text':
          live.appendText(run.id, event.delta);
          break;
        case 'reasoning':
          live.appendReasoning(run.id, event.delta);
          break;
        case 'tool_call_delta':
          break;
        case 'retry':
          recordRetry(store, run, event);
          messageId = newId('msg');
          live.beginMessage(run.id, messageId);
          break;
        case 'completed':
          return { kind: 'completed', messageId, completion: event.message };
        case 'failed':
          return { kind: 'failed', failure: event.error };
      }
    }
  } finally {
    live.endMessage(run.id);
  }
  return {
    kind: 'failed',
    failure: {
      class: 'network',
      message: 'the model stream ended without a result',
      retryable: false,
    },
  };
}
