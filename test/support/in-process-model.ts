/**
 * A {@link ModelAdapter} fake for loop-logic tests: scripted turns streamed as the adapter's
 * own events, in process, with no HTTP and no SDK. Tests of the adapter itself (requests,
 * SSE parsing, retries) and end-to-end tests use the real HTTP server in
 * `scripted-model-server.ts` instead.
 */
import type { ModelAdapter } from '../../host/model/index.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';

type ModelRequest = Parameters<ModelAdapter['stream']>[0];
type ModelToolCall = Extract<
  ModelStreamEvent,
  { type: 'completed' }
>['message']['toolCalls'][number];

/** One scripted turn: the events to stream, with how the fake model misbehaves. */
export interface FakeTurn {
  events: ModelStreamEvent[];
  /** Wait this long before each event (a slow model). */
  delayMs?: number;
  /** Stream this many events, then hang until the request is aborted. */
  stallAfter?: number;
}

/** The in-process model: the runtime's adapter, plus the script and what it was asked. */
export interface InProcessModel extends ModelAdapter {
  /** Every request the runtime made, in order. */
  readonly requests: ModelRequest[];
  /** Queues turns; each request takes the next one (before any {@link answer}). */
  push(...turns: FakeTurn[]): void;
  /** Turns still queued. */
  readonly pending: number;
}

const ABORTED: ModelStreamEvent = {
  type: 'failed',
  error: { class: 'aborted', message: 'the request was aborted', retryable: false },
};

/**
 * `answer`: the turn for a request when none is queued, made from the request itself (a
 * model that reads its context), e.g. for sessions of hundreds of runs.
 */
export function createInProcessModel(answer?: (request: ModelRequest) => FakeTurn): InProcessModel {
  const queue: FakeTurn[] = [];
  const requests: ModelRequest[] = [];
  return {
    provider: 'generic',
    requests,
    push: (...turns) => queue.push(...turns),
    get pending() {
      return queue.length;
    },
    async *stream(request, signal) {
      requests.push(request);
      const turn = queue.shift() ?? answer?.(request);
      if (turn === undefined) {
        const message = `in-process model: script exhausted (request #${requests.length} has no turn queued)`;
        yield { type: 'failed', error: { class: 'server', message, retryable: false } };
        return;
      }
      for (const [index, event] of turn.events.entries()) {
        if (index === turn.stallAfter) {
          await aborted(signal);
          yield ABORTED;
          return;
        }
        if (turn.delayMs !== undefined) await pause(turn.delayMs, signal);
        if (signal.aborted) {
          yield ABORTED;
          return;
        }
        yield event;
      }
    },
  };
}

/** A text answer streamed in pieces, e.g. `fakeTextTurn(['hel', 'lo'])`. */
export function fakeTextTurn(pieces: string | string[]): FakeTurn {
  const text = typeof pieces === 'string' ? [pieces] : pieces;
  return {
    events: [
      ...text.map((delta): ModelStreamEvent => ({ type: 'text', delta })),
      {
        type: 'completed',
        message: { text: text.join(''), toolCalls: [], finishReason: 'stop', native: {} },
      },
    ],
  };
}

/** A turn that proposes `calls` (finish reason `tool_calls`), each call in one delta. */
export function fakeToolCallTurn(calls: ModelToolCall[]): FakeTurn {
  return {
    events: [
      ...calls.map((call, index): ModelStreamEvent => ({
        type: 'tool_call_delta',
        index,
        id: call.id,
        name: call.name,
        argumentsDelta: call.arguments,
      })),
      {
        type: 'completed',
        message: { text: '', toolCalls: calls, finishReason: 'tool_calls', native: {} },
      },
    ],
  };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
