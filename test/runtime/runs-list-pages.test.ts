/**
 * runs.list answers the same args from its last answer while nothing was committed (issue
 * 26): every commit, whatever it wrote, makes the next answer a fresh read.
 */
import { expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';

it('gives the runs as committed after every kind of commit, and the same page between them', async () => {
  await using harness = await startHarness();
  const { runtime } = harness;
  const states = () => runtime.listRuns({ limit: 5 }).runs.map((run) => run.state);
  expect(states()).toEqual([]);
  harness.model.push(textTurn('done'));
  const { runId } = runtime.submit({ commandId: commandId(), input: { text: 'one' } }, 'dev-a');
  const queued = runtime.listRuns({ limit: 5 });
  expect(queued.runs.map((run) => run.id)).toEqual([runId]);
  // Nothing committed since: the same answer.
  expect(runtime.listRuns({ limit: 5 })).toBe(queued);
  await runtime.whenIdle();
  expect(states()).toEqual(['succeeded']);
  const { runId: second } = runtime.submit(
    { commandId: commandId(), input: { text: 'two' } },
    'dev-a',
  );
  expect(states()).toEqual(['running', 'succeeded']);
  runtime.cancel({ commandId: commandId(), runId: second }, 'dev-a');
  expect(states()).toEqual(['cancelling', 'succeeded']);
  await runtime.whenIdle();
  expect(states()).toEqual(['cancelled', 'succeeded']);
  // Other args are another page.
  expect(runtime.listRuns({ limit: 1 }).runs.map((run) => run.id)).toEqual([second]);
  // A commit that writes no run still makes the next answer a fresh read.
  const before = runtime.listRuns({ limit: 5 });
  harness.store.write(() => undefined);
  expect(runtime.listRuns({ limit: 5 })).not.toBe(before);
  expect(runtime.listRuns({ limit: 5 })).toEqual(before);
});
