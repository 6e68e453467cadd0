/**
 * `download.link` against the real host (started in this process, real sockets, the
 * scripted model): a link serves its file once, as an attachment; a second use, an expired
 * link, a link for a device the host does not know, a revoked device's link and a link
 * asked for over a plain-HTTP LAN origin are all refused; a loopback proxy saying https
 * (tailscale serve) gets links on its own origin.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { startHost, type RunningHost } from '../../host/cli/start-host.js';
import { loadOrCreateHostIdentity } from '../../host/identity/index.js';
import { DownloadLinks } from '../../host/server/testing.js';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';
import { until } from '../support/wait.js';
import {
  startScriptedModelServer,
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let rootDir: TempDir;
let root: string;
let host: RunningHost;
let model: ScriptedModelServer;
let origin: string;
let channel: RawChannel;
let toolCallId: string;
let artifactId: string;

const Link = z.object({ url: z.string(), expiresAt: z.number() });
const RunView = z.looseObject({
  run: z.looseObject({ state: z.string() }),
  toolCalls: z.array(z.looseObject({ id: z.string(), state: z.string() })),
  approvals: z.array(
    z.looseObject({
      id: z.string(),
      toolCallId: z.string(),
      state: z.string(),
      inputDigest: z.string(),
    }),
  ),
  artifacts: z.array(z.looseObject({ id: z.string(), name: z.string() })),
});

async function adminOffer(): Promise<string> {
  const file = z
    .object({ url: z.string(), token: z.string() })
    .parse(JSON.parse(readFileSync(join(host.config.dataDir, 'admin.json'), 'utf8')));
  const response = await fetch(`${file.url}/admin/api/offers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${file.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return z.object({ link: z.string() }).parse(await response.json()).link;
}

async function link(on: RawChannel, args: object): Promise<string> {
  return Link.parse(await on.call('download.link', args)).url;
}

beforeAll(async () => {
  rootDir = tempDir('tether-download-', { realpath: false });
  root = rootDir.path;
  model = await startScriptedModelServer();
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = 'warn';
  process.env['TETHER_MODEL_BASE_URL'] = model.baseUrl;
  process.env['TETHER_MODEL'] = 'scripted-model';
  process.env['TETHER_MODEL_API_KEY'] = 'sk-test';
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  host = await startHost(
    ['--data', join(root, 'data'), '--port', '0', '--workspace', workspace],
    () => undefined,
  );
  origin = host.url;
  const paired = await pairDevice(await adminOffer());
  channel = await RawChannel.open(paired.host);

  model.push(
    toolCallTurn([
      {
        id: 'call_write',
        name: 'write_file',
        arguments: JSON.stringify({
          path: 'notes.txt',
          content: 'first line\nsecond line\n',
          expectedSha256: null,
        }),
      },
    ]),
  );
  model.push(textTurn('Written.'));
  const { runId } = z.object({ runId: z.string() }).parse(
    await channel.call('run.submit', {
      commandId: 'download-test-run-0001',
      input: { text: 'write' },
    }),
  );
  const waiting = await until(
    'a pending approval',
    async () => RunView.parse(await channel.call('run.get', { runId })),
    (view) => view.approvals.some((approval) => approval.state === 'pending'),
  );
  const approval = waiting.approvals[0]!;
  await channel.call('approval.respond', {
    commandId: 'download-test-approve-01',
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
    decision: 'approve',
  });
  const done = await until(
    'the run to succeed',
    async () => RunView.parse(await channel.call('run.get', { runId })),
    (view) => view.run.state === 'succeeded',
  );
  toolCallId = done.toolCalls[0]!.id;
  artifactId = done.artifacts[0]!.id;
}, 60_000);

afterAll(async () => {
  channel?.socket.socket.close();
  await host?.stop();
  await model?.close();
  for (const name of ['TETHER_MODEL_BASE_URL', 'TETHER_MODEL', 'TETHER_MODEL_API_KEY'])
    delete process.env[name];
  rootDir.remove();
});

describe('download links', () => {
  it('serve a tool call output once, as an attachment, then refuse the same link', async () => {
    const url = await link(channel, { toolCallId });
    expect(url.startsWith(`${origin}/v1/download/`)).toBe(true);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const body = await first.text();
    const stored = host.runtime.outputs.toolCall(toolCallId)!.output!;
    expect(body).toBe(readFileSync(stored.path, 'utf8'));
    expect(first.headers.get('content-length')).toBe(String(stored.bytes));
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-disposition')).toMatch(
      /^attachment; filename="write_file-tc_/,
    );
    const second = await fetch(url);
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({
      error: { code: 'invalid_state', details: { state: 'used' } },
    });
  });

  it('serve an artifact under its own name', async () => {
    const response = await fetch(await link(channel, { artifactId }));
    expect(response.status).toBe(200);
    const artifact = host.runtime.outputs.artifact(artifactId)!;
    expect(await response.text()).toBe(readFileSync(artifact.path, 'utf8'));
    expect(response.headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent(artifact.name)}`,
    );
  });

  it('refuse an unknown tool call or artifact when the link is asked for', async () => {
    const answer = await channel.request('download.link', { artifactId: 'art_nope' });
    expect(answer.ok ? undefined : answer.error.code).toBe('not_found');
  });

  it('refuse a link after it expired', async () => {
    const url = await link(channel, { toolCallId });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const response = await fetch(url);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ error: { details: { state: 'expired' } } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuse a link signed by another key, or for a device this host never paired', async () => {
    const identity = await loadOrCreateHostIdentity({
      dataDir: host.config.dataDir,
      platform: process.platform,
      keychain: null,
    });
    const hostKey = { id: identity.hostId, publicKey: identity.hostPk, secretKey: identity.hostSk };
    const loopback = { url: origin, secure: false, loopback: true };
    const strangers = new DownloadLinks({
      runtime: host.runtime,
      identity: hostKey,
    });
    const unknownDevice = await strangers.issue({ toolCallId }, 'AAAAAAAAAAAAAAAAAAAAAA', loopback);
    expect((await fetch(unknownDevice.url)).status).toBe(401);
    const { createIdentity } = await import('../../pairing/index.js');
    const otherHost = new DownloadLinks({
      runtime: host.runtime,
      identity: { ...createIdentity(), id: hostKey.id },
    });
    const paired = host.store.devices.list()[0]!;
    const forged = await otherHost.issue({ toolCallId }, paired.deviceId, loopback);
    expect((await fetch(forged.url)).status).toBe(401);
  });

  it('refuse the link of a device revoked after it was issued', async () => {
    const second = await pairDevice(await adminOffer());
    const secondChannel = await RawChannel.open(second.host);
    const url = await link(secondChannel, { toolCallId });
    await channel.call('device.revoke', {
      commandId: 'download-test-revoke-01',
      deviceId: second.host.deviceId,
    });
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'device_revoked' } });
  });

  it('refuse links on a plain-HTTP LAN origin; give a loopback https proxy links on its origin', async () => {
    const port = new URL(origin).port;
    await using clients = tempDir('tether-download-client-', { realpath: false });
    const connectWith = async (headers: Record<string, string>) => {
      const client = new TetherClient({
        storage: new FileStorage(join(clients.path, `${Object.values(headers).join('-')}.json`)),
        socketFactory: nodeWebSocketFactory({ headers }),
      });
      const paired = await client.pair(await adminOffer(), { name: 'LAN test', platform: 'node' });
      return { client, connection: await client.connect(paired.hostId) };
    };
    const lan = await connectWith({ host: `mymac.local:${port}` });
    await expect(lan.connection.request('download.link', { toolCallId })).rejects.toMatchObject({
      code: 'invalid_state',
      details: { state: 'insecure_origin' },
    });
    await lan.client.close();

    const proxied = await connectWith({
      host: `127.0.0.1:${port}`,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'mac.tail1234.ts.net',
    });
    const { url } = await proxied.connection.request('download.link', { toolCallId });
    expect(url.startsWith('https://mac.tail1234.ts.net/v1/download/')).toBe(true);
    const path = new URL(url).pathname;
    // fetch() will not send a Host of our choosing; node:http will.
    const plain = await new Promise<{ status: number }>((resolve, reject) => {
      get(`${origin}${path}`, { headers: { host: `mymac.local:${port}` } }, (incoming) => {
        incoming.resume();
        resolve({ status: incoming.statusCode ?? 0 });
      }).on('error', reject);
    });
    expect(plain.status).toBe(409);
    const viaProxy = await fetch(`${origin}${path}`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(viaProxy.status).toBe(200);
    await proxied.client.close();
  });
});
