/**
 * A session of 200 runs (docs/sessions.md): each run a task of 800 characters, one tool call
 * with 1500 characters of output, and an answer, against an in-process model that answers
 * at once, with a real store and workspace. Once with a 4000-token context, where the
 * session is summarised again and again, and once with a context it never outgrows (the
 * baseline, in the same process). Prints the time of the 200 runs, the median time of a run
 * at the start and at the end, the size of the requests, and the summaries made.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/session.js
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from '../host/model/index.js';
import { Runtime } from '../host/runtime/index.js';
import { Store } from '../host/store/index.js';
import { defineTool } from '../host/tools/testing.js';
import type { ToolDefinition } from '../host/tools/index.js';

const RUNS = 200;
/** Runs timed at each end of the session. */
const EDGE = 20;

const dumpTool = defineTool({
  name: 'dump',
  description: 'prints a page',
  input: z.strictObject({ n: z.number() }),
  access: () => ({ kind: 'read', path: '.' }),
  execute: (input) =>
    Promise.resolve({
      status: 'succeeded' as const,
      summary: 'dumped',
      content: `OUT-${input.n} ${'x'.repeat(1500)}`,
    }),
}) as ToolDefinition<unknown>;

function completed(text: string, toolCalls: { id: string; name: string; arguments: string }[]) {
  const event: ModelStreamEvent = {
    type: 'completed',
    message: {
      text,
      toolCalls,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      native: {},
    },
  };
  return event;
}

/** A model that reads its context: a task gets a `dump` call, a result an answer. */
function agentModel(): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let calls = 0;
  return {
    provider: 'generic',
    requests,
    // eslint-disable-next-line @typescript-eslint/require-await
    async *stream(request) {
      requests.push(request);
      if (request.tools.length === 0) {
        yield completed('The user asked for numbered tasks; each was dumped and answered.', []);
        return;
      }
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        yield completed(`answer after ${last.content.slice(0, 12)}`, []);
        return;
      }
      calls += 1;
      const n = Number(/^task (\d+)/.exec(last?.content ?? '')?.[1] ?? 0);
      yield completed('', [{ id: `c${calls}`, name: 'dump', arguments: `{"n":${n}}` }]);
    },
  };
}

function requestChars(request: ModelRequest): number {
  return request.messages.reduce((sum, message) => sum + message.content.length, 0);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function session(contextTokens: number) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-session-')));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const store = await Store.open({ dataDir: join(root, 'data') });
  let compactions = 0;
  store.subscribe((events) => {
    compactions += events.filter((event) => event.type === 'session.compacted').length;
  });
  const model = agentModel();
  const runtime = new Runtime(store, {
    model: { adapter: model, name: 'bench', available: ['bench'] },
    workspaces: [{ name: 'workspace', path: workspace }],
    tools: [dumpTool],
    limits: { contextTokens },
  });
  runtime.start();
  const runMs: number[] = [];
  let sessionId: string | undefined;
  let failed = 0;
  const started = performance.now();
  for (let i = 1; i <= RUNS; i++) {
    const before = performance.now();
    const submitted = runtime.submit(
      {
        commandId: `bench-${i}`,
        input: { text: `task ${i} ${'y'.repeat(800)}` },
        ...(sessionId === undefined ? {} : { sessionId }),
      },
      'bench',
    );
    sessionId = submitted.sessionId;
    await runtime.whenIdle();
    runMs.push(performance.now() - before);
    if (runtime.getRun(submitted.runId).run.state !== 'succeeded') failed += 1;
  }
  const totalMs = performance.now() - started;
  await runtime.stop();
  store.close();
  rmSync(root, { recursive: true, force: true });
  const turns = model.requests.filter((request) => request.tools.length > 0).map(requestChars);
  return {
    totalMs,
    firstMs: median(runMs.slice(0, EDGE)),
    lastMs: median(runMs.slice(-EDGE)),
    failed,
    requests: model.requests.length,
    summaryRequests: model.requests.length - turns.length,
    compactions,
    maxChars: Math.max(...turns),
    lastChars: turns.at(-1) ?? 0,
  };
}

const small = await session(4000);
const baseline = await session(100_000_000);
for (const [name, figures] of [
  ['context 4000 tokens', small],
  ['baseline, never summarised', baseline],
] as const) {
  console.log(
    `${name}: ${RUNS} runs in ${Math.round(figures.totalMs)} ms (${figures.failed} failed); ` +
      `median run ${figures.firstMs.toFixed(1)} ms in the first ${EDGE}, ${figures.lastMs.toFixed(1)} ms in the last ${EDGE}; ` +
      `${figures.requests} requests (${figures.summaryRequests} summary requests, ${figures.compactions} summaries); ` +
      `request characters max ${figures.maxChars}, last ${figures.lastChars}`,
  );
}
console.log(
  `time ratio small/baseline: ${(small.totalMs / baseline.totalMs).toFixed(2)}; last request size ratio: ${(small.lastChars / baseline.lastChars).toFixed(3)}`,
);
