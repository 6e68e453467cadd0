/**
 * The encrypted channel against a real host process over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, HostMessage } from '../../protocol/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import {
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;

beforeAll(async () => {
  served = await startModelHost();
  ({ model, host } = served);
});

afterAll(async () => served?.dispose());

async function untilIdle(channel: RawChannel, runId: string): Promise<Event[]> {
  const events: Event[] = [];
  const take = (message: HostMessage) => {
    if (message.t === 'events') events.push(...(message.events as Event[]));
  };
  channel.others.splice(0).forEach(take);
  while (!events.some((event) => event.type === 'session.idle' && event.runId === runId)) {
    const message = await channel.receive();
    if (message === undefined) throw new Error('closed');
    take(message);
  }
  return events;
}

describe('pairing and the channel', () => {
  it('pairs through the admin link with the same SAS on both sides, then runs a task live', async () => {
    const offer = await host.offer();
    const { host: paired, sas } = await pairDevice(offer.link);
    const status = (await (
      await host.admin('GET', `/admin/api/offers/${offer.offerId}`)
    ).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ state: 'paired', sas });
    expect(host.output()).toContain(`, SAS ${sas}: it must match the device's screen`);

    await using channel = await RawChannel.open(paired);
    const info = await channel.request('host.info');
    expect(info).toMatchObject({
      ok: true,
      result: { hostId: paired.hostId, protocol: 1, models: ['scripted-model'] },
    });

    const subscribed = await channel.request('subscribe', {});
    expect(subscribed).toMatchObject({ ok: true, result: { mode: 'snapshot' } });
    model.push(
      toolCallTurn([{ id: 'r', name: 'read_file', arguments: '{"path":"README.md"}' }]),
      textTurn(['All ', 'good.']),
    );
    const submitted = await channel.request('run.submit', {
      commandId: 'cmd-channel-test-0001',
      input: { text: 'Read the README' },
    });
    expect(submitted).toMatchObject({ ok: true, result: { state: 'queued', deduplicated: false } });
    const runId = String((submitted as { result: Record<string, unknown> }).result['runId']);
    const events = await untilIdle(channel, runId);
    const types = events.filter((event) => event.runId === runId).map((event) => event.type);
    expect(types).toEqual([
      'run.queued',
      'run.started',
      'model.request',
      'message.completed',
      'tool.proposed',
      'tool.started',
      'tool.finished',
      'model.request',
      'message.completed',
      'run.finished',
      'session.idle',
    ]);
    const seqs = events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    const again = await channel.request('run.submit', {
      commandId: 'cmd-channel-test-0001',
      input: { text: 'Read the README' },
    });
    expect(again).toMatchObject({ ok: true, result: { runId, deduplicated: true } });
    const conflict = await channel.request('run.submit', {
      commandId: 'cmd-channel-test-0001',
      input: { text: 'other' },
    });
    expect(conflict).toMatchObject({ ok: false, error: { code: 'command_conflict' } });
    const bad = await channel.request('run.submit', { commandId: 'x', input: {} });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const unknown = await channel.request('run.explode', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_op' } });
    channel.send({ t: 'ping' });
    let pong = await channel.receive();
    while (pong?.t === 'output') pong = await channel.receive();
    expect(pong).toEqual({ t: 'pong' });
  });

  it('three remotes watching one run see the same events in the same order', async () => {
    const watchers = await Promise.all(
      [1, 2, 3].map(async () => RawChannel.open((await pairDevice(await host.pairLink())).host)),
    );
    for (const watcher of watchers) await watcher.call('subscribe', {});
    model.push(
      toolCallTurn([{ id: 'l', name: 'list_directory', arguments: '{}' }]),
      textTurn('done'),
    );
    const { runId } = (await watchers[0]!.call('run.submit', {
      commandId: 'cmd-three-watchers-001',
      input: { text: 'List' },
    })) as { runId: string };
    const seen = await Promise.all(watchers.map((watcher) => untilIdle(watcher, runId)));
    const ofRun = seen.map((events) => events.filter((event) => event.runId === runId));
    expect(ofRun[0]!.length).toBeGreaterThan(8);
    expect(ofRun[1]).toEqual(ofRun[0]);
    expect(ofRun[2]).toEqual(ofRun[0]);
    for (const watcher of watchers) watcher.socket.socket.close();
  });

  it('a command whose answer was lost is applied once when resent on a new connection', async () => {
    const { host: paired } = await pairDevice(await host.pairLink());
    const first = await RawChannel.open(paired);
    model.push(textTurn('once'));
    const args = { commandId: 'cmd-lost-answer-0001', input: { text: 'only once' } };
    first.send({ t: 'req', id: '1', op: 'run.submit', args });
    first.socket.socket.terminate();
    await using second = await RawChannel.open(paired);
    const again = (await second.call('run.submit', args)) as {
      runId: string;
      deduplicated: boolean;
    };
    expect(again.deduplicated).toBe(true);
    const { runs } = (await second.call('runs.list', {})) as {
      runs: { id: string; input: { text: string } }[];
    };
    expect(runs.filter((run) => run.input.text === 'only once')).toHaveLength(1);
  });
});
