/**
 * What is pushed besides approvals, and how much a push says (issue 13, docs/push.md): a
 * run that fails is pushed by default, a run that succeeds only to a device that asked for
 * `run_ended`, and `push.body` decides whether the tool, the workspace and the command or
 * error are named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { errorReply, textTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { commandId, startPushHost, submitAsking, type PushHost } from './push-host.js';

let push: PushHost | undefined;

afterEach(async () => {
  await push?.dispose();
  push = undefined;
});

async function submit(host: PushHost, text: string): Promise<string> {
  const submitted = await host.fault.channel.call('run.submit', {
    commandId: commandId(),
    input: { text },
  });
  const runId = String(submitted['runId']);
  await until(`the end of ${runId}`, () =>
    host.fault.typesOf(runId).includes('session.idle') ? true : undefined,
  );
  return runId;
}

describe('pushes for run endings', () => {
  it('a failed run is pushed once, with its error code; a succeeded one is not, by default', async () => {
    push = await startPushHost();
    push.fault.model.push(textTurn('All good.'));
    await submit(push, 'Say something');
    // A 400 is not retried: the run fails at once with bad_request.
    push.fault.model.push(errorReply(400, 'the request was malformed'));
    const failed = await submit(push, 'Fail please');
    const [received] = await push.fake.waitFor(1);
    expect(received!.problems).toEqual([]);
    expect(received!.payload).toEqual({
      v: 1,
      kind: 'run_failed',
      hostId: push.hostId,
      hostName: push.hostName,
      runId: failed,
      title: `Run failed on ${push.hostName}`,
      body: 'in workspace: bad_request',
      tag: `run:${push.hostId}:${failed}`,
      at: expect.any(Number) as number,
    });
    expect(received!.headers['urgency']).toBe('normal');
    expect(received!.headers['topic']).toBe(failed);
    // The succeeded run before it pushed nothing, and nothing else follows.
    await push.fault.channel.call('push.test', { commandId: commandId() });
    expect(push.fake.received.map((r) => r.payload)).toMatchObject([
      { kind: 'run_failed' },
      { kind: 'test' },
    ]);
  });

  it('a device that asked for run_ended hears of every end of the runs it submitted', async () => {
    push = await startPushHost({ kinds: ['run_ended'] });
    push.fault.model.push(textTurn('All good.'));
    const runId = await submit(push, 'Say something');
    const [received] = await push.fake.waitFor(1);
    expect(received!.payload).toMatchObject({
      kind: 'run_ended',
      runId,
      title: `Run finished on ${push.hostName}`,
    });
  });
});

describe('push.body', () => {
  it('"none" names neither the tool nor the workspace', async () => {
    push = await startPushHost({ push: { body: 'none' } });
    const { approvalId } = await submitAsking(push);
    const [received] = await push.fake.waitFor(1);
    expect(received!.payload).toMatchObject({
      kind: 'approval',
      approvalId,
      title: `Approval needed on ${push.hostName}`,
      body: '',
    });
  });

  it('"full" names the command too', async () => {
    push = await startPushHost({ push: { body: 'full' } });
    await submitAsking(push);
    const [received] = await push.fake.waitFor(1);
    expect(received!.payload).toMatchObject({
      body: expect.stringMatching(/^run_command in workspace: .*sh unlisted\.sh/) as string,
    });
  });
});
