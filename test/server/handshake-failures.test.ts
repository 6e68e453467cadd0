/**
 * Each way a handshake or channel can go wrong ends with its close code, and leaves the
 * host serving everyone else (docs/protocol.md sections 2-5). A real host process.
 */
import nacl from 'tweetnacl';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64u } from '../../protocol/index.js';
import { createIdentity, openChannel, type PairedHost } from '../../pairing/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { RawChannel, RawSocket, pairDevice } from '../support/raw-channel.js';

let host: HostProcess;
let device: PairedHost;

beforeAll(async () => {
  host = await startHostProcess();
  device = (await pairDevice(await host.pairLink())).host;
});

afterAll(async () => host.dispose());

/** Sends `hello` built from `record` and returns the error frame and close code. */
async function helloFails(
  record: PairedHost,
  edit: (hello: Record<string, unknown>) => void = () => undefined,
) {
  const socket = await RawSocket.open(host.url);
  const { hello } = openChannel(record);
  const frame: Record<string, unknown> = { ...hello };
  edit(frame);
  socket.sendText(frame);
  const error = await socket.nextText();
  return { error, closed: await socket.closed };
}

async function stillServes(): Promise<void> {
  await using channel = await RawChannel.open(device);
  expect(await channel.call('host.info')).toMatchObject({ hostId: device.hostId });
}

describe('handshake failures close with their code', () => {
  it('unknown device: 4401', async () => {
    const stranger = createIdentity();
    const record = {
      ...device,
      deviceId: stranger.id,
      deviceSeed: b64u(stranger.secretKey.slice(0, 32)),
    };
    const { error, closed } = await helloFails(record);
    expect(error).toMatchObject({ t: 'error', code: 'unauthorized' });
    expect(closed.code).toBe(4401);
  });

  it('a signature from another key: 4401', async () => {
    const other = createIdentity();
    const { closed } = await helloFails({
      ...device,
      deviceSeed: b64u(other.secretKey.slice(0, 32)),
    });
    expect(closed.code).toBe(4401);
  });

  it('no common version: 4426', async () => {
    const { error, closed } = await helloFails(device, (hello) => (hello['v'] = [2, 3]));
    expect(error).toMatchObject({ code: 'unsupported_version' });
    expect(closed.code).toBe(4426);
  });

  it('an all-zero ephemeral key: 4400', async () => {
    // The signature must cover the zero key, or the check would stop at 4401.
    const seed = Buffer.from(device.deviceSeed, 'base64url');
    const signer = nacl.sign.keyPair.fromSeed(seed);
    const { helloTranscript } = await import('../../pairing/testing.js');
    const zero = new Uint8Array(32);
    const nonce = nacl.randomBytes(16);
    const sig = nacl.sign.detached(
      helloTranscript(device.hostId, device.deviceId, zero, nonce),
      signer.secretKey,
    );
    const { closed } = await helloFails(device, (hello) => {
      hello['eph'] = b64u(zero);
      hello['nonce'] = b64u(nonce);
      hello['sig'] = b64u(sig);
    });
    expect(closed.code).toBe(4400);
  });

  it('not JSON, an unknown frame type, and a frame over 1 MiB: 4400', async () => {
    for (const frame of ['{nope', JSON.stringify({ t: 'hi' }), 'x'.repeat(1024 * 1024 + 1)]) {
      const socket = await RawSocket.open(host.url);
      socket.sendText(frame);
      expect((await socket.closed).code).toBe(4400);
    }
  });

  it('a binary frame over 1 MiB on an open channel: 4400', async () => {
    const channel = await RawChannel.open(device);
    channel.socket.socket.send(new Uint8Array(1024 * 1024 + 100));
    expect((await channel.socket.closed).code).toBe(4400);
  });

  it('a text frame after the channel opened: 4400', async () => {
    const channel = await RawChannel.open(device);
    channel.socket.sendText({ t: 'ping' });
    expect((await channel.socket.closed).code).toBe(4400);
  });

  it('a replayed hello yields no usable channel', async () => {
    const socket = await RawSocket.open(host.url);
    const { hello } = openChannel(device);
    socket.sendText(hello);
    await socket.nextText();
    socket.socket.close();
    const replay = await RawSocket.open(host.url);
    replay.sendText(hello);
    const welcome = await replay.nextText();
    expect(welcome?.t).toBe('welcome');
    // Without the ephemeral secret the replayer can only guess keys: its first frame fails.
    replay.socket.send(
      nacl.secretbox(new Uint8Array([123, 125]), new Uint8Array(24), nacl.randomBytes(32)),
    );
    expect((await replay.closed).code).toBe(4400);
  });

  it('frames replayed from another connection fail to open: 4400', async () => {
    const first = await RawChannel.open(device);
    const sent: Uint8Array[] = [];
    const seal = first.cipher.seal.bind(first.cipher);
    first.cipher.seal = (message: object) => {
      const frame = seal(message);
      sent.push(frame);
      return frame;
    };
    await first.call('host.info');
    first.socket.socket.close();
    const second = await RawChannel.open(device);
    second.socket.socket.send(sent[0]!);
    expect((await second.socket.closed).code).toBe(4400);
    await stillServes();
  });

  it('too many handshakes from one address at once: 4429, and others are not locked out', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.7' };
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(host.url.replace('http', 'ws') + '/v1/ws', { headers });
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      });
    const waiting = await Promise.all(Array.from({ length: 16 }, open));
    const extra = await open();
    const code = await new Promise<number>((resolve) =>
      extra.once('close', (closeCode) => resolve(closeCode)),
    );
    expect(code).toBe(4429);
    await stillServes();
    for (const socket of waiting) socket.close();
  });

  it('a handshake that never comes: 4408 after 10 s', { timeout: 20_000 }, async () => {
    const socket = await RawSocket.open(host.url);
    const error = await socket.nextText(15_000);
    expect(error).toMatchObject({ code: 'handshake_timeout' });
    expect((await socket.closed).code).toBe(4408);
  });
});

describe('revocation', () => {
  it('closes the revoked device at once with 4403, refuses its next hello, and leaves others alone', async () => {
    const victim = (await pairDevice(await host.pairLink())).host;
    await using watcher = await RawChannel.open(device);
    const open = await RawChannel.open(victim);
    await open.call('host.info');
    await watcher.call('device.revoke', {
      commandId: 'cmd-revoke-test-00001',
      deviceId: victim.deviceId,
    });
    expect((await open.socket.closed).code).toBe(4403);
    const { error, closed } = await helloFails(victim);
    expect(error).toMatchObject({ code: 'device_revoked' });
    expect(closed.code).toBe(4403);
    const { devices } = (await watcher.call('devices.list')) as {
      devices: { deviceId: string; revoked: boolean; current: boolean }[];
    };
    expect(devices.find((d) => d.deviceId === victim.deviceId)).toMatchObject({ revoked: true });
    expect(devices.find((d) => d.deviceId === device.deviceId)).toMatchObject({
      revoked: false,
      current: true,
    });
    expect(await watcher.call('host.info')).toMatchObject({ hostId: device.hostId });
  });
});

describe('revoking itself', () => {
  it('gets its answer first, then its socket closes with 4403', async () => {
    const self = (await pairDevice(await host.pairLink())).host;
    const channel = await RawChannel.open(self);
    expect(
      await channel.call('device.revoke', {
        commandId: 'cmd-revoke-self-00001',
        deviceId: self.deviceId,
      }),
    ).toEqual({});
    expect((await channel.socket.closed).code).toBe(4403);
  });
});

describe('pairing offers', () => {
  it('are single use: a used link fails with 4409 and says it was used', async () => {
    const link = await host.pairLink();
    await pairDevice(link);
    await expect(pairDevice(link)).rejects.toMatchObject({
      code: 'pair_failed',
      message: 'pairing failed: this link was used already',
    });
  });
});
