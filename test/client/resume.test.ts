import { describe, expect, it } from 'vitest';
import type { Event } from '../../protocol/index.js';
import type { ConnectionEvent } from '../../remote/client/index.js';
import { FakeHost } from './fake-host.js';
import { nextEvent, pairedClient, stateWhere, statusOf } from './helpers.js';

const isRestart = (
  event: ConnectionEvent,
): event is Extract<ConnectionEvent, { type: 'hostRestarted' }> => event.type === 'hostRestarted';

function subscribeArgs(host: FakeHost) {
  return host.requests
    .filter((request) => request.op === 'subscribe')
    .map((request) => request.args);
}

/** A host with one submitted run, and a client following everything from a snapshot. */
async function following() {
  const host = new FakeHost();
  const paired = await pairedClient(host);
  const { connection } = paired;
  const { runId } = await connection.submit('run.submit', { input: { text: 'Go' } });
  const seen: Event[] = [];
  const subscription = connection.subscribeEvents(
    {},
    { onEvents: (events) => seen.push(...events) },
  );
  await subscription.ready;
  return { ...paired, host, runId, seen, subscription };
}

describe('resuming subscriptions', () => {
  it('starts from a snapshot, then resumes after a drop from the last seq seen', async () => {
    const { host, connection, runId, seen, subscription } = await following();
    expect(subscription.lastSeq).toBe(2);
    expect(connection.state.state.runs[runId]?.state).toBe('queued');
    host.advance(runId, 'run.started');
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    host.dropAll();
    host.advance(runId, 'model.request', { index: 0, model: 'm' }); // while the remote is away
    await statusOf(connection, 'open');
    host.advance(runId, 'run.finished', { state: 'succeeded' });
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'succeeded');
    expect(subscribeArgs(host)).toEqual([{}, { afterSeq: 3 }]);
    expect(seen.map((event) => event.seq)).toEqual([3, 4, 5]);
    expect(connection.state.state.timelines[runId]).toEqual(
      host.eventsOf(runId).filter((e) => e.seq > 2),
    );
  });

  it('says where it started even when events come in the same turn as its answer', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    const { runId } = await connection.submit('run.submit', { input: { text: 'Go' } });
    host.onSubscribed = () => {
      host.onSubscribed = undefined;
      host.advance(runId, 'run.started');
    };
    const seen: Event[] = [];
    const subscription = connection.subscribeEvents(
      {},
      { onEvents: (events) => seen.push(...events) },
    );
    await subscription.ready;
    // The event came before ready's callbacks: lastSeq has moved, the start has not.
    expect(seen.map((event) => event.seq)).toEqual([3]);
    expect(subscription.lastSeq).toBe(3);
    expect(subscription.startedAfter).toBe(2);
  });

  it('ignores events it has already seen', async () => {
    const { host, connection, runId, seen } = await following();
    host.advance(runId, 'run.started');
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    const [side] = host.openSides;
    side?.send({ t: 'events', sub: 'sub_1', events: host.log }); // a replayed batch, seq 1-3
    host.advance(runId, 'run.finished', { state: 'succeeded' });
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'succeeded');
    expect(seen.map((event) => event.seq)).toEqual([3, 4]);
    expect(connection.state.state.timelines[runId]?.map((event) => event.seq)).toEqual([3, 4]);
  });

  it('subscribes again from its own last seq after lagged', async () => {
    const { host, connection, runId, subscription } = await following();
    host.advance(runId, 'run.started');
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    const [side] = host.openSides;
    side!.subs.delete('sub_1');
    host.advance(runId, 'model.request', { index: 0, model: 'm' }); // never sent on sub_1
    side!.send({ t: 'lagged', sub: 'sub_1', cursor: 3 });
    await stateWhere(connection.state, (state) => state.timelines[runId]?.length === 2);
    expect(subscribeArgs(host)).toEqual([{}, { afterSeq: 3 }]);
    expect(subscription.lastSeq).toBe(4);
  });

  it('reports a host restart and resumes from the same cursor', async () => {
    const { host, connection, runId, seen } = await following();
    const restarted = nextEvent(connection, isRestart);
    host.restart();
    host.advance(runId, 'run.finished', { state: 'interrupted' });
    expect(await restarted).toEqual({
      type: 'hostRestarted',
      hostId: host.identity.id,
      previousInstance: 'ins_1',
      instance: 'ins_2',
    });
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'interrupted');
    expect(subscribeArgs(host)).toEqual([{}, { afterSeq: 2 }]);
    expect(seen.map((event) => event.seq)).toEqual([3]);
  });

  it('replaces its state from a snapshot when the host can no longer replay', async () => {
    const { host, connection, runId, seen } = await following();
    host.dropAll();
    host.replayWindow = 0;
    host.advance(runId, 'run.started');
    await statusOf(connection, 'open');
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    host.advance(runId, 'run.finished', { state: 'succeeded' });
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'succeeded');
    expect(subscribeArgs(host)).toEqual([{}, { afterSeq: 2 }]);
    expect(seen.map((event) => event.seq)).toEqual([4]);
  });

  it('reports invalid messages and unknown events, skips them, and carries on', async () => {
    const { host, connection, runId, subscription } = await following();
    const warnings: string[] = [];
    connection.on((event) => event.type === 'warning' && warnings.push(event.error.message));
    const side = host.openSides[0]!;
    side.send({ t: 'preview', runId: 7 });
    const future = { ...host.log[0]!, seq: 3, id: 'evt_3', type: 'from.the.future' };
    host.log.push(future as unknown as Event);
    side.send({ t: 'events', sub: 'sub_1', events: [future] });
    host.advance(runId, 'run.started');
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    expect(warnings).toEqual([
      'host sent an invalid message',
      'event seq 3 failed its schema (skipped)',
    ]);
    expect(subscription.lastSeq).toBe(4);
    expect(connection.status.state).toBe('open');
  });
});

describe('requests', () => {
  it('wait for a connection, and fail with unavailable at their deadline', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    host.reachable = false;
    host.dropAll();
    await statusOf(connection, 'waiting');
    const info = connection.request('host.info', {});
    host.reachable = true;
    await expect(info).resolves.toMatchObject({ name: 'Fake Mac' });
    host.reachable = false;
    host.dropAll();
    await expect(connection.request('host.info', {}, { timeoutMs: 20 })).rejects.toMatchObject({
      code: 'unavailable',
      message: 'host.info timed out after 20 ms',
    });
  });

  it('reject with the host error code, message and details', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    await expect(connection.request('run.get', { runId: 'run_x' })).rejects.toMatchObject({
      code: 'unknown_op',
    });
    await expect(connection.request('run.get', { runId: '' })).rejects.toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ path: 'runId', message: expect.any(String) as string }] },
    });
  });
});

describe('refusals that end the connection', () => {
  it('stops on 4403 and reports revoked', async () => {
    const host = new FakeHost();
    const { connection, paired } = await pairedClient(host);
    host.devices.get(paired.deviceId)!.revoked = true;
    host.dropAll(4403);
    const stopped = await statusOf(connection, 'stopped');
    expect(stopped).toMatchObject({ reason: 'revoked', error: { code: 'device_revoked' } });
    await expect(connection.submit('run.submit', { input: { text: 'x' } })).rejects.toMatchObject({
      code: 'device_revoked',
    });
  });

  it('stops when the host no longer knows the device: not paired, or the host identity changed', async () => {
    const host = new FakeHost();
    const { connection, paired } = await pairedClient(host);
    host.devices.delete(paired.deviceId);
    host.dropAll(1001);
    const stopped = await statusOf(connection, 'stopped');
    expect(stopped).toMatchObject({ reason: 'unauthorized', error: { code: 'unauthorized' } });
    await expect(connection.request('host.info', {})).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});
