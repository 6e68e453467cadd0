import { describe, expect, it } from 'vitest';
import { errorReply, textTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness, type Harness } from './harness.js';

async function runOnce(harness: Harness): Promise<string> {
  const { runId } = harness.runtime.submit({ commandId: commandId(), input: { text: 'x' } }, 'dev');
  await harness.runtime.whenIdle();
  return runId;
}

describe('model failures end as the right class', () => {
  it('retries a 429 honouring Retry-After, each retry a model.retry event, then succeeds', async () => {
    await using harness = await startHarness();
    harness.model.push(
      errorReply(429, 'slow down', { headers: { 'retry-after-ms': '30' } }),
      errorReply(500, 'oops'),
      textTurn('fine'),
    );
    const runId = await runOnce(harness);
    expect(harness.runtime.getRun(runId).run.state).toBe('succeeded');
    const retries = harness.events.filter((e) => e.type === 'model.retry' && e.runId === runId);
    expect(retries.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        attempt: 2,
        maxAttempts: 5,
        reason: 'rate_limit',
        status: 429,
        delayMs: 30,
      }),
      expect.objectContaining({ attempt: 3, reason: 'server', status: 500 }),
    ]);
    expect(harness.model.requests).toHaveLength(3);
  });

  it('fails a context-length 400 at once, without retrying', async () => {
    await using harness = await startHarness();
    harness.model.push(
      errorReply(400, "This model's maximum context length is 65536 tokens.", {
        code: 'context_length_exceeded',
      }),
    );
    const runId = await runOnce(harness);
    const run = harness.runtime.getRun(runId).run;
    expect(run.state).toBe('failed');
    expect(run.error?.code).toBe('context_too_long');
    expect(harness.model.requests).toHaveLength(1);
    const finished = harness.events.find((e) => e.type === 'run.finished' && e.runId === runId);
    expect(finished?.payload).toMatchObject({
      state: 'failed',
      error: { code: 'context_too_long' },
    });
  });

  it('fails with auth on a 401 and says so', async () => {
    await using harness = await startHarness();
    harness.model.push(errorReply(401, 'bad key'));
    const run = harness.runtime.getRun(await runOnce(harness)).run;
    expect(run.error?.code).toBe('auth');
    expect(harness.model.requests).toHaveLength(1);
  });

  it('gives up after the last attempt of a server that keeps failing', async () => {
    await using harness = await startHarness({ adapter: { maxAttempts: 3 } });
    harness.model.push(errorReply(503, 'busy'), errorReply(503, 'busy'), errorReply(503, 'busy'));
    const runId = await runOnce(harness);
    expect(harness.runtime.getRun(runId).run.error?.code).toBe('server');
    expect(harness.typesOf(runId).filter((type) => type === 'model.retry')).toHaveLength(2);
  });

  it('hits the idle timeout on a stalled stream, retries, then fails as timeout', async () => {
    await using harness = await startHarness({ adapter: { maxAttempts: 2, idleTimeoutMs: 150 } });
    harness.model.push(
      { ...textTurn(['a', 'b']), stallAfter: 2 },
      { ...textTurn(['a', 'b']), stallAfter: 2 },
    );
    const runId = await runOnce(harness);
    const run = harness.runtime.getRun(runId).run;
    expect(run.state).toBe('failed');
    expect(run.error?.code).toBe('timeout');
    expect(harness.typesOf(runId).filter((type) => type === 'model.retry')).toHaveLength(1);
  });

  it('retries a connection dropped mid-stream and keeps only the complete answer', async () => {
    await using harness = await startHarness();
    harness.model.push(
      { ...textTurn(['half ', 'an answer']), dropAfter: 2 },
      textTurn('whole answer'),
    );
    const runId = await runOnce(harness);
    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.messages.map((message) => message.text)).toEqual(['whole answer']);
  });

  it('stops a run at its model-turn budget', async () => {
    await using harness = await startHarness({ runtime: { limits: { maxModelTurns: 2 } } });
    const call = (id: string) => ({ id, name: 'list_directory', arguments: '{}' });
    const { toolCallTurn } = await import('../support/scripted-model-server.js');
    harness.model.push(toolCallTurn([call('a')]), toolCallTurn([call('b')]), textTurn('never'));
    const runId = await runOnce(harness);
    const run = harness.runtime.getRun(runId).run;
    expect(run.state).toBe('failed');
    expect(run.error?.code).toBe('budget_exhausted');
    expect(harness.model.requests).toHaveLength(2);
  });
});
