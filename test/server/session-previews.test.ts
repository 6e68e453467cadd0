/**
 * Live previews go to the channels that watch their run's session, and to no other: a
 * subscription scoped to one session sees its runs' text stream, not another session's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostMessage } from '../../protocol/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import { textTurn, type ScriptedModelServer } from '../support/scripted-model-server.js';

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;

beforeAll(async () => {
  served = await startModelHost();
  ({ model, host } = served);
});

afterAll(async () => served?.dispose());

/** The runs whose previews `channel` received until `runId`'s session went idle. */
async function previewedRuns(channel: RawChannel, runId: string): Promise<Set<string>> {
  const runs = new Set<string>();
  let idle = false;
  const take = (message: HostMessage) => {
    if (message.t === 'preview') runs.add(message.runId);
    if (message.t === 'events') {
      idle ||= message.events.some((e) => e.type === 'session.idle' && e.runId === runId);
    }
  };
  channel.others.splice(0).forEach(take);
  while (!idle) {
    const message = await channel.receive();
    if (message === undefined) throw new Error('closed');
    take(message);
  }
  return runs;
}

describe('live previews and session subscriptions', () => {
  it('reach the channel watching the run’s session, not one watching another session', async () => {
    await using submitter = await RawChannel.open((await pairDevice(await host.pairLink())).host);
    await using watcher = await RawChannel.open((await pairDevice(await host.pairLink())).host);
    const words = Array.from({ length: 30 }, (_, i) => `word${i} `);

    model.push(textTurn('First.'));
    const first = (await submitter.call('run.submit', {
      commandId: 'cmd-session-previews-01',
      input: { text: 'Start a session' },
    })) as { runId: string; sessionId: string };
    await submitter.call('subscribe', {});
    await previewedRuns(submitter, first.runId);

    await watcher.call('subscribe', { scope: { sessionId: first.sessionId } });
    // A run in the watched session, then one in a new session, each streaming slowly.
    model.push(textTurn(words, { delayMs: 5 }));
    const inSession = (await submitter.call('run.submit', {
      commandId: 'cmd-session-previews-02',
      sessionId: first.sessionId,
      input: { text: 'Go on' },
    })) as { runId: string };
    expect(await previewedRuns(watcher, inSession.runId)).toEqual(new Set([inSession.runId]));

    model.push(textTurn(words, { delayMs: 5 }));
    const elsewhere = (await submitter.call('run.submit', {
      commandId: 'cmd-session-previews-03',
      input: { text: 'Something else' },
    })) as { runId: string };
    expect(await previewedRuns(submitter, elsewhere.runId)).toContain(elsewhere.runId);
    // The watcher's channel is still open and heard nothing of the other session's run.
    watcher.send({ t: 'ping' });
    const heard: HostMessage[] = [];
    for (let message = await watcher.receive(); message?.t !== 'pong';) {
      if (message === undefined) throw new Error('closed');
      heard.push(message);
      message = await watcher.receive();
    }
    const previews = heard.filter((message) => message.t === 'preview');
    expect(previews.map((message) => message.t === 'preview' && message.runId)).not.toContain(
      elsewhere.runId,
    );
  }, 60_000);
});
