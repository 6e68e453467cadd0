/**
 * Issue 11, finding 5: a provider's 401 that echoes the API key (whole, or elided the way
 * OpenAI, other consoles and DeepSeek do) must not put the key, nor a recognisable part of
 * it, into the store, host.log, the host's output or anything a paired device receives;
 * the run's error still says what happened. A real host process, a real paired client.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../protocol/index.js';
import { Redactor } from '../../host/log/index.js';
import { createModelAdapter } from '../../host/model/index.js';
import { Store } from '../../host/store/index.js';
import { TetherClient, type HostConnection, type HostState } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import {
  errorReply,
  startScriptedModelServer,
  textTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { stateWhere } from '../client/helpers.js';
import { collect, failureOf, userRequest } from './adapter-harness.js';

const KEY = 'sk-proj-Rz81XwQe5tLk0VbN3mHs7DcY2pJf9GaU4oTi6WyLq0Xe';
const TAIL = KEY.slice(-4);
const HELP = 'You can find your API key at https://platform.openai.com/account/api-keys.';

/** The key, any 12 characters of it, or its last 4 after an elision. */
const GIVES_AWAY = new RegExp(
  [
    ...Array.from({ length: KEY.length - 11 }, (_, at) => KEY.slice(at, at + 12)),
    `[*.…]${TAIL}`,
  ].join('|'),
);

/** What the provider says, and what the run's error must say instead. */
const ECHOES = [
  {
    form: 'the whole key',
    said: `Incorrect API key provided: ${KEY}. ${HELP}`,
    error: `authentication failed (401): Incorrect API key provided: ***. ${HELP}`,
  },
  {
    form: "OpenAI's elided key",
    said: `Incorrect API key provided: sk-proj-${'*'.repeat(44)}${TAIL}. ${HELP}`,
    error: `authentication failed (401): Incorrect API key provided: ***. ${HELP}`,
  },
  {
    form: 'its first 6 … last 4',
    said: `Invalid API key ${KEY.slice(0, 6)}…${TAIL}`,
    error: 'authentication failed (401): Invalid API key ***',
  },
  {
    form: "DeepSeek's last 4",
    said: `Authentication Fails, Your api key: ****${TAIL} is invalid`,
    error: 'authentication failed (401): Authentication Fails, Your api key: *** is invalid',
  },
];

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let root: TempDir;
let client: TetherClient;
let connection: HostConnection;

beforeAll(async () => {
  root = tempDir('tether-secret-error-', { realpath: false });
  served = await startModelHost({ env: { TETHER_MODEL_API_KEY: KEY } });
  ({ model, host } = served);
  client = new TetherClient({
    storage: new FileStorage(join(root.path, 'client.json')),
    socketFactory: nodeWebSocketFactory(),
  });
  const paired = await client.pair(await host.pairLink(), { name: 'Phone', platform: 'ios' });
  connection = await client.connect(paired.hostId);
  await connection.subscribeEvents().ready;
});

afterAll(async () => {
  await client.close();
  await served?.dispose();
  root.remove();
});

const finished = (runId: string) => (state: HostState) =>
  state.timelines[runId]?.some((event) => event.type === 'run.finished') ?? false;

/** Every byte of the database files (WAL included), as text. */
function databaseBytes(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith('tether.db'))
    .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
    .join('\n');
}

const EventRow = z.object({
  type: z.string(),
  run_id: z.string().nullable(),
  payload_json: z.string(),
});

describe('a 401 that echoes the API key', () => {
  const runIds: string[] = [];
  let state: HostState;

  it('fails each run with auth and an error that says what happened, the key masked', async () => {
    for (const echo of ECHOES) {
      model.push(errorReply(401, echo.said, { code: 'invalid_api_key' }));
      const { runId } = await connection.submit('run.submit', { input: { text: echo.form } });
      runIds.push(runId);
      state = await stateWhere(connection.state, finished(runId));
      expect(state.runs[runId], echo.form).toMatchObject({
        state: 'failed',
        error: { code: 'auth', message: echo.error },
      });
      const event = state.timelines[runId]?.find((e) => e.type === 'run.finished');
      expect(event?.payload).toMatchObject({ error: { code: 'auth', message: echo.error } });
    }
    // The provider really was sent the key, and really echoed it.
    expect(model.requests.map((request) => request.headers.authorization)).toEqual(
      ECHOES.map(() => `Bearer ${KEY}`),
    );
  });

  it('leaves no part of the key in what the paired device received', async () => {
    const fromHost = await Promise.all(
      runIds.map((runId) => connection.request('run.get', { runId })),
    );
    expect(JSON.stringify(state)).toContain('Incorrect API key provided: ***');
    expect(JSON.stringify(state)).not.toMatch(GIVES_AWAY);
    expect(JSON.stringify(fromHost)).not.toMatch(GIVES_AWAY);
  });

  it('leaves no part of the key in the store', () => {
    const db = new Database(join(host.dataDir, 'tether.db'), {
      readonly: true,
      fileMustExist: true,
    });
    let events: z.infer<typeof EventRow>[];
    let runErrors: unknown[];
    try {
      events = z
        .array(EventRow)
        .parse(db.prepare('SELECT type, run_id, payload_json FROM events ORDER BY seq').all());
      runErrors = db.prepare('SELECT error_json FROM runs').pluck().all();
    } finally {
      db.close();
    }
    const failures = events.filter((event) => event.type === 'run.finished');
    expect(failures.map((event) => event.run_id)).toEqual(runIds);
    for (const [index, event] of failures.entries()) {
      expect(event.payload_json).toContain(JSON.stringify(ECHOES[index]!.error).slice(1, -1));
    }
    expect(JSON.stringify(events)).not.toMatch(GIVES_AWAY);
    expect(JSON.stringify(runErrors)).not.toMatch(GIVES_AWAY);
    expect(databaseBytes(host.dataDir)).not.toMatch(GIVES_AWAY);
  });

  it('leaves no part of the key in host.log or the host output', async () => {
    await host.stop();
    const logs = readdirSync(join(host.dataDir, 'logs')).map((name) =>
      readFileSync(join(host.dataDir, 'logs', name), 'utf8'),
    );
    expect(logs.join('')).toContain('"msg":"stopped"');
    expect(logs.join('')).not.toMatch(GIVES_AWAY);
    expect(host.output()).not.toMatch(GIVES_AWAY);
  });
});

describe("the store's gate, whatever wrote the event", () => {
  it('masks a registered key in a payload before it is stored and before it is published', async () => {
    await using temp = tempDir('tether-secret-store-', { realpath: false });
    const dataDir = temp.path;
    const secrets = new Redactor();
    secrets.register(KEY);
    const store = await Store.open({ dataDir, secrets });
    try {
      const published: Event[] = [];
      store.subscribe((events) => published.push(...events));
      const message = `401 ${KEY.slice(0, 20)}… / sk-proj-****${TAIL}`;
      const error = { code: 'auth', message };
      const appended = store.write((tx) => [
        tx.append({ type: 'run.finished', payload: { state: 'failed', error } }),
        tx.append({ type: 'session.idle', payload: { [KEY]: [KEY] } }),
        tx.append({ type: 'run.started', payload: { note: 'nothing secret here' } }),
      ]);
      const masked = [
        { state: 'failed', error: { code: 'auth', message: '401 ***… / ***' } },
        { '***': ['***'] },
        { note: 'nothing secret here' },
      ];
      expect(appended.map((event) => event.payload)).toEqual(masked);
      expect(published.map((event) => event.payload)).toEqual(masked);
      expect(store.events.after(0).map((event) => event.payload)).toEqual(masked);
      store.close();
      expect(databaseBytes(dataDir)).not.toMatch(GIVES_AWAY);
    } finally {
      store.close();
    }
  });
});

describe("the adapter's failures, retried or final", () => {
  it('masks the key and key-shaped tokens in every retry and failure message', async () => {
    await using server = await startScriptedModelServer();
    const groq = 'gsk_0123456789abcdefABCDEF0123';
    server.push(
      errorReply(503, `upstream refused key ${KEY.slice(0, 16)}`),
      errorReply(429, `slow down, Bearer ${'Tok3n'.repeat(5)}`),
      {
        ...textTurn('x'),
        items: [{ data: JSON.stringify({ error: { message: `bad ${KEY}` } }) }],
      },
      errorReply(401, `Invalid API Key ${groq} (key ${KEY.slice(0, 6)}...${TAIL})`),
    );
    const adapter = createModelAdapter({
      baseUrl: server.baseUrl,
      apiKey: KEY,
      retryBaseDelayMs: 1,
    });
    const events = await collect(adapter.stream(userRequest('hi'), new AbortController().signal));
    const retries = events.filter((event) => event.type === 'retry');
    expect(retries.map((event) => event.message)).toEqual([
      '503 upstream refused key ***',
      '429 slow down, Bearer ***',
      'bad ***',
    ]);
    expect(failureOf(events)).toMatchObject({
      class: 'auth',
      message: 'authentication failed (401): Invalid API Key *** (key ***) (after 4 attempts)',
    });
    expect(JSON.stringify(events)).not.toMatch(GIVES_AWAY);
    expect(JSON.stringify(events)).not.toContain(groq);
  });
});
