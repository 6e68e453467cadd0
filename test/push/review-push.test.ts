/**
 * "Ready to review" pushes (issue 25, docs/push.md): a run in its own worktree whose end
 * committed changes on its branch is pushed, once, naming the branch; a follow-up that
 * changed nothing (`run.result` with `committed: false`) is not, as the branch holds
 * nothing new to review; a device that asked only for run endings gets none.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepository } from '../support/git-workspace.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { commandId, startPushHost, type PushHost } from './push-host.js';

let push: PushHost | undefined;

afterEach(async () => {
  await push?.dispose();
  push = undefined;
});

/** Submits a task (a worktree session's first, or a follow-up) and waits for its end. */
async function submit(
  host: PushHost,
  text: string,
  sessionId?: string,
): Promise<{ runId: string; sessionId: string }> {
  const submitted = await host.fault.channel.call('run.submit', {
    commandId: commandId(),
    input: { text },
    ...(sessionId === undefined ? { isolation: 'worktree' } : { sessionId }),
  });
  const runId = String(submitted['runId']);
  await until(`the end of ${runId}`, () =>
    host.fault.typesOf(runId).includes('session.idle') ? true : undefined,
  );
  return { runId, sessionId: String(submitted['sessionId']) };
}

/** A model turn that writes `hello.txt`, then says it is done. */
function writesAFile(host: PushHost): void {
  host.fault.model.push(
    toolCallTurn([
      {
        id: `call_${randomUUID()}`,
        name: 'write_file',
        arguments: JSON.stringify({ path: 'hello.txt', content: 'hi\n', expectedSha256: null }),
      },
    ]),
    textTurn('Written.'),
  );
}

function resultOf(host: PushHost, runId: string): Record<string, unknown> | undefined {
  return host.fault.events().find((e) => e.type === 'run.result' && e.runId === runId)?.payload;
}

describe('ready to review', () => {
  it('is pushed for a committed result, and not for a follow-up that changed nothing', async () => {
    push = await startPushHost();
    makeRepository(push.fault.host.workspace);
    writesAFile(push);
    const first = await submit(push, 'Write hello');
    const [received] = await push.fake.waitFor(1);
    const branch = String(resultOf(push, first.runId)?.['branch']);
    expect(branch).toMatch(/^tether\//);
    expect(received!.problems).toEqual([]);
    expect(received!.payload).toEqual({
      v: 1,
      kind: 'review',
      hostId: push.hostId,
      hostName: push.hostName,
      runId: first.runId,
      title: `Ready to review on ${push.hostName}`,
      body: `${branch} in workspace: 1 file changed`,
      tag: `review:${push.hostId}:${first.sessionId}`,
      at: expect.any(Number) as number,
    });
    expect(received!.headers['urgency']).toBe('normal');

    push.fault.model.push(textTurn('Nothing to change.'));
    const follow = await submit(push, 'Look again', first.sessionId);
    expect(resultOf(push, follow.runId)).toMatchObject({ committed: false });
    // The follow-up pushed nothing: the next push is the test's own.
    await push.fault.channel.call('push.test', { commandId: commandId() });
    await push.fake.waitFor(2);
    expect(push.fake.received.map((r) => r.payload)).toMatchObject([
      { kind: 'review' },
      { kind: 'test' },
    ]);
  });

  it('is not pushed to a device that asked only for run endings', async () => {
    push = await startPushHost({ kinds: ['run_ended'] });
    makeRepository(push.fault.host.workspace);
    writesAFile(push);
    const { runId } = await submit(push, 'Write hello');
    await push.fake.waitFor(1);
    await push.fault.channel.call('push.test', { commandId: commandId() });
    await push.fake.waitFor(2);
    expect(push.fake.received.map((r) => r.payload)).toMatchObject([
      { kind: 'run_ended', runId },
      { kind: 'test' },
    ]);
  });
});
