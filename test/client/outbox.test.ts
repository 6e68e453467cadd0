import { describe, expect, it } from 'vitest';
import { type ConnectionEvent, TetherClient } from '../../remote/client/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { FakeHost } from './fake-host.js';
import { NO_WAIT, nextEvent, pairedClient, statusOf } from './helpers.js';

const submitArgs = { input: { text: 'List the files' } };
const isSettled = (
  event: ConnectionEvent,
): event is Extract<ConnectionEvent, { type: 'commandSettled' }> => event.type === 'commandSettled';

function submitted(host: FakeHost) {
  return host.requests.filter((request) => request.op === 'run.submit');
}

describe('the durable outbox', () => {
  it('stores a command with its commandId before the first send, and forgets it once answered', async () => {
    const host = new FakeHost();
    const { connection, storage } = await pairedClient(host);
    let storedAtSend: unknown;
    host.onRequest = () =>
      void storage.get(`outbox/${host.identity.id}`).then((value) => (storedAtSend = value));
    const settled = nextEvent(connection, isSettled);
    const result = await connection.submit('run.submit', submitArgs);
    expect(result).toEqual({
      runId: 'run_1',
      sessionId: 'ses_1',
      state: 'queued',
      deduplicated: false,
    });
    const [sent] = submitted(host);
    expect(sent?.args['commandId']).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(storedAtSend).toEqual([
      {
        commandId: sent?.args['commandId'],
        op: 'run.submit',
        args: sent?.args,
        createdAt: expect.any(Number) as number,
      },
    ]);
    expect((await settled).outcome).toEqual({ ok: true, result });
    expect(await storage.get(`outbox/${host.identity.id}`)).toEqual([]);
    expect(connection.pendingCommands).toEqual([]);
  });

  it('sends a command under the commandId its caller kept, to make it again after a reload', async () => {
    const host = new FakeHost();
    const { connection, storage } = await pairedClient(host);
    const commandId = 'kept-command-id-0123456789';
    let stored: unknown;
    host.onRequest = () =>
      void storage.get(`outbox/${host.identity.id}`).then((value) => (stored = value));
    await connection.submit('run.submit', submitArgs, { commandId });
    expect(submitted(host).map((request) => request.args['commandId'])).toEqual([commandId]);
    expect(stored).toEqual([expect.objectContaining({ commandId, op: 'run.submit' }) as unknown]);
    expect(connection.pendingCommands).toEqual([]);
  });

  it('resends a command whose answer was lost with the connection; the host applies it once', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    host.onRequest = (op) => {
      if (op !== 'run.submit' || submitted(host).length > 1) return;
      host.dropAll(); // the command is applied, its answer never arrives
    };
    const result = await connection.submit('run.submit', submitArgs);
    const [first, second] = submitted(host);
    expect(second?.args).toEqual(first?.args);
    expect(result).toMatchObject({ runId: 'run_1', deduplicated: true });
    expect(host.runs).toHaveLength(1);
    expect(host.sockets.length).toBeGreaterThan(2);
  });

  it('keeps retrying through retryable errors, and settles on a final one', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    host.failNext('run.submit', 'persistence_failed');
    host.failNext('run.submit', 'rate_limited');
    host.failNext('run.submit', 'unavailable');
    await expect(connection.submit('run.submit', submitArgs)).resolves.toMatchObject({
      runId: 'run_1',
    });
    expect(submitted(host)).toHaveLength(4);
    expect(new Set(submitted(host).map((request) => request.args['commandId'])).size).toBe(1);

    host.failNext('run.submit', 'workspace_denied');
    await expect(
      connection.submit('run.submit', { ...submitArgs, workspace: '/etc' }),
    ).rejects.toMatchObject({
      name: 'TetherError',
      code: 'workspace_denied',
      message: 'injected workspace_denied',
    });
    expect(connection.pendingCommands).toEqual([]);
  });

  it('refuses invalid args before storing anything', async () => {
    const host = new FakeHost();
    const { connection, storage } = await pairedClient(host);
    await expect(connection.submit('run.submit', { input: { text: '' } })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await storage.get(`outbox/${host.identity.id}`)).toBeUndefined();
    expect(submitted(host)).toEqual([]);
  });

  it('after a client restart, sends what an earlier client left and reports the result', async () => {
    const host = new FakeHost();
    const storage = new MemoryStorage();
    const { client: pairing } = await pairedClient(host, storage);
    await pairing.close();
    host.reachable = false;
    const offline = new TetherClient({
      storage,
      socketFactory: host.factory,
      settings: { backoff: { baseMs: 60_000 } },
    });
    const waiting = await offline.connect(host.identity.id);
    await statusOf(waiting, 'waiting');
    const lost = waiting.submit('run.submit', submitArgs);
    await expect.poll(() => waiting.pendingCommands.length).toBe(1);
    const [pending] = waiting.pendingCommands;
    await offline.close();
    await expect(lost).rejects.toMatchObject({ code: 'unavailable' });

    host.reachable = true;
    const restarted = new TetherClient({ storage, socketFactory: host.factory, settings: NO_WAIT });
    const settled = new Promise<ConnectionEvent>((resolve) =>
      restarted.on((event) => isSettled(event) && resolve(event)),
    );
    await restarted.connect(host.identity.id);
    expect(await settled).toMatchObject({
      hostId: host.identity.id,
      command: pending,
      outcome: { ok: true, result: { runId: 'run_1', deduplicated: false } },
    });
    expect(submitted(host).map((request) => request.args['commandId'])).toEqual([
      pending?.commandId,
    ]);
    expect(await storage.get(`outbox/${host.identity.id}`)).toEqual([]);
  });

  it('stops waiting on abort, but still sends the command and reports it', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    host.reachable = false;
    host.dropAll();
    await statusOf(connection, 'waiting');
    const controller = new AbortController();
    const submit = connection.submit('run.submit', submitArgs, { signal: controller.signal });
    await expect.poll(() => connection.pendingCommands.length).toBe(1);
    controller.abort(new Error('user left the page'));
    await expect(submit).rejects.toThrow('user left the page');
    const settled = nextEvent(connection, isSettled);
    host.reachable = true;
    connection.retryNow();
    expect((await settled).outcome).toMatchObject({ ok: true });
  });
  it('reports the pending commands when a command is stored and when it leaves', async () => {
    const host = new FakeHost();
    const { connection } = await pairedClient(host);
    const seen: string[][] = [];
    connection.on((event) => {
      if (event.type === 'outboxChanged') seen.push(event.pending.map((command) => command.op));
    });
    await connection.submit('run.submit', submitArgs);
    expect(seen).toEqual([['run.submit'], []]);
  });
});
