/**
 * The Node client against the real host process over real sockets: pairing through the
 * admin link, a run followed to session.idle, and a socket dropped mid-run.
 */
import { join } from 'node:path';
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../protocol/index.js';
import {
  type HostConnection,
  type HostState,
  TetherClient,
  type WebSocketFactory,
} from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import { textTurn, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { stateWhere, statusOf } from './helpers.js';

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let rootDir: TempDir;
let root: string;
let client: TetherClient;
let connection: HostConnection;
/** Every socket the client opened, so a test can drop the current one. */
const sockets: WebSocket[] = [];

const OfferStatus = z.looseObject({ state: z.string(), sas: z.string().optional() });

beforeAll(async () => {
  rootDir = tempDir('tether-client-host-', { realpath: false });
  root = rootDir.path;
  served = await startModelHost();
  ({ model, host } = served);
  const open = nodeWebSocketFactory();
  const recording: WebSocketFactory = (url) => {
    const socket = open(url) as WebSocket;
    sockets.push(socket);
    return socket;
  };
  client = new TetherClient({
    storage: new FileStorage(join(root, 'client.json')),
    socketFactory: recording,
  });
});

afterAll(async () => {
  await client.close();
  await served?.dispose();
  rootDir.remove();
});

const idle = (runId: string) => (state: HostState) =>
  state.timelines[runId]?.some((event) => event.type === 'session.idle') ?? false;

/** The host's own account of a run's events: a fresh subscription replaying from seq 0. */
async function replayFromZero(runId: string): Promise<Event[]> {
  const events: Event[] = [];
  const done = new Promise<void>((resolve) => {
    const subscription = connection.subscribeEvents(
      { runId },
      {
        afterSeq: 0,
        onEvents: (batch) => {
          events.push(...batch);
          if (batch.some((event) => event.type === 'session.idle')) {
            subscription.close();
            resolve();
          }
        },
      },
    );
  });
  await done;
  return events;
}

describe('the Node client against the real host', () => {
  it('pairs with the SAS the admin API reports, opens a channel, and follows a run to session.idle', async () => {
    const offer = await host.offer();
    const paired = await client.pair(offer.link, { name: 'Node test', platform: 'node' });
    const status = OfferStatus.parse(
      await (await host.admin('GET', `/admin/api/offers/${offer.offerId}`)).json(),
    );
    expect(status).toMatchObject({ state: 'paired', sas: paired.sas });

    connection = await client.connect(paired.hostId);
    await statusOf(connection, 'open');
    expect(await connection.request('host.info', {})).toMatchObject({
      hostId: paired.hostId,
      protocol: 1,
      models: ['scripted-model'],
    });
    await connection.subscribeEvents().ready;

    // A device paired meanwhile shows up whole from its device.paired event alone.
    const tablet = new TetherClient({
      storage: new FileStorage(join(root, 'tablet.json')),
      socketFactory: nodeWebSocketFactory(),
    });
    const other = await tablet.pair((await host.offer()).link, {
      name: 'Tablet',
      platform: 'ipados',
    });
    await tablet.close();
    const withTablet = await stateWhere(
      connection.state,
      (state) => state.devices[other.deviceId] !== undefined,
    );
    expect(withTablet.devices[other.deviceId]).toMatchObject({
      name: 'Tablet',
      platform: 'ipados',
      revoked: false,
      current: false,
    });

    const previews: string[] = [];
    const stop = connection.state.subscribe((state) => {
      for (const preview of Object.values(state.previews)) previews.push(preview.text);
    });
    // Deltas further apart than the host's preview batching (~33 ms), so that one is sent
    // before the message is durable even on a loaded machine.
    model.push(textTurn(['Hel', 'lo ', 'there.'], { delayMs: 150 }));
    const submitted = await connection.submit('run.submit', { input: { text: 'Say hi' } });
    expect(submitted).toMatchObject({ state: 'queued', deduplicated: false });
    const { runId } = submitted;
    const state = await stateWhere(connection.state, idle(runId));
    stop();
    expect(state.runs[runId]?.state).toBe('succeeded');
    expect(state.messages[runId]?.map((message) => message.text)).toEqual(['Hello there.']);
    expect(state.previews[runId]).toBeUndefined();
    expect(previews.length).toBeGreaterThan(0);
    for (const text of previews) expect('Hello there.'.startsWith(text)).toBe(true);
    expect(state.timelines[runId]).toEqual(await replayFromZero(runId));
  });

  it('resumes after its socket drops mid-run, with exactly the events the host has', async () => {
    model.push(textTurn(['one ', 'two ', 'three ', 'four ', 'five.'], { delayMs: 150 }));
    const opened: string[] = [];
    connection.on((event) => {
      if (event.type === 'status' && event.status.state === 'open')
        opened.push(event.status.connectionId);
    });
    const { runId } = await connection.submit('run.submit', { input: { text: 'Count to five' } });
    await stateWhere(connection.state, (state) => state.runs[runId]?.state === 'running');
    sockets.at(-1)?.terminate();
    const state = await stateWhere(connection.state, idle(runId));
    expect(opened).toHaveLength(1);
    expect(state.runs[runId]?.state).toBe('succeeded');
    expect(state.timelines[runId]).toEqual(await replayFromZero(runId));
    const fromHost = await connection.request('run.get', { runId });
    expect(state.runs[runId]).toEqual(fromHost.run);
    expect(state.messages[runId]?.map((message) => message.text)).toEqual(
      fromHost.messages.map((message) => message.text),
    );
  });
});
