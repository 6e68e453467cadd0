import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { b64u, CloseCode, fromB64u, type HelloMessage, isAllZero } from '../../protocol/index.js';
import {
  acceptHello,
  createIdentity,
  handshakeErrorFrame,
  type Identity,
  openChannel,
  type PairedHost,
} from '../../pairing/index.js';
import { helloTranscript, type HelloOptions, welcomeTranscript } from '../../pairing/testing.js';
import { failureOf, openInMemory, pairInMemory } from './fixtures.js';

/** X25519 u = 1: a point of order 4, so any clamped scalar times it is all zeros. */
const LOW_ORDER_POINT = new Uint8Array(32);
LOW_ORDER_POINT[0] = 1;

function channelSetup() {
  const { host, device, deviceSide } = pairInMemory();
  const record = deviceSide.host;
  const known = { devicePk: device.publicKey, revoked: false };
  const hostOptions: HelloOptions = {
    identity: host,
    lookupDevice: (deviceId) => (deviceId === record.deviceId ? known : undefined),
    connectionId: 'conn_1',
    instanceId: 'inst_1',
  };
  return { host, device, record, known, hostOptions };
}

/** A hello the device signed properly, over an ephemeral key of the test's choosing. */
function signedHello(record: PairedHost, device: Identity, eph: Uint8Array): HelloMessage {
  const nonce = nacl.randomBytes(16);
  const signed = helloTranscript(record.hostId, record.deviceId, eph, nonce);
  return {
    t: 'hello',
    v: [1],
    device: record.deviceId,
    eph: b64u(eph),
    nonce: b64u(nonce),
    sig: b64u(nacl.sign.detached(signed, device.secretKey)),
  };
}

/** A welcome to `hello` signed by `signer`, over an ephemeral key of the test's choosing. */
function signedWelcome(hello: HelloMessage, signer: Identity, record: PairedHost, eph: Uint8Array) {
  const signed = welcomeTranscript(
    record.hostId,
    record.deviceId,
    fromB64u(hello.eph),
    eph,
    fromB64u(hello.nonce),
  );
  const sig = b64u(nacl.sign.detached(signed, signer.secretKey));
  return { t: 'welcome', v: 1, eph: b64u(eph), sig, conn: 'conn_1', instance: 'inst_1' };
}

describe('channel', () => {
  it('opens a channel and carries 1,000 frames each way, in order', () => {
    const { host, record, known } = channelSetup();
    const channel = openInMemory(host, record, known);
    for (let i = 0; i < 1000; i++) {
      const request = { t: 'req', id: String(i), op: 'host.info', args: { i } };
      expect(channel.host.openFrame(channel.device.seal(request), true)).toEqual(request);
      const response = { t: 'res', id: String(i), ok: true, result: { n: i, pad: 'x'.repeat(i) } };
      expect(channel.device.openFrame(channel.host.seal(response), true)).toEqual(response);
    }
    expect(channel.host.closed || channel.device.closed).toBe(false);
  });

  it('gives the device the connection and instance ids of the welcome', () => {
    const { record, hostOptions } = channelSetup();
    const { hello, channel } = openChannel(record);
    const accepted = acceptHello(hello, { ...hostOptions, instanceId: 'inst_7' });
    if (!accepted.ok) throw accepted.error;
    expect(accepted.deviceId).toBe(record.deviceId);
    expect(channel.receiveWelcome(accepted.welcome)).toMatchObject({
      ok: true,
      connectionId: 'conn_1',
      instanceId: 'inst_7',
    });
  });

  it('zeroes both ephemeral secrets once the keys exist', () => {
    const { record, hostOptions } = channelSetup();
    const handed: Uint8Array[] = [];
    const recording = (length: number) => {
      const bytes = nacl.randomBytes(length);
      handed.push(bytes);
      return bytes;
    };
    const { hello, channel } = openChannel(record, { randomBytes: recording });
    const accepted = acceptHello(hello, { ...hostOptions, randomBytes: recording });
    if (!accepted.ok) throw accepted.error;
    expect(channel.receiveWelcome(accepted.welcome).ok).toBe(true);
    const [ecSk, nonceC, ehSk] = handed;
    expect(isAllZero(ecSk!)).toBe(true);
    expect(isAllZero(ehSk!)).toBe(true);
    expect(isAllZero(nonceC!)).toBe(false);
  });

  it('refuses an unknown device with 4401', () => {
    const { record, hostOptions } = channelSetup();
    const { hello } = openChannel(record);
    const { error } = failureOf(
      acceptHello(hello, { ...hostOptions, lookupDevice: () => undefined }),
    );
    expect(error).toMatchObject({
      code: 'unauthorized',
      message: 'unknown device or bad signature',
    });
    expect(error.closeCode).toBe(CloseCode.unauthorized);
    expect(error.internalReason).toBe('unknown device');
  });

  it('refuses a hello signed by another device key with 4401', () => {
    const { record, hostOptions } = channelSetup();
    const { hello } = openChannel(record);
    const impostor = { devicePk: createIdentity().publicKey, revoked: false };
    const { error } = failureOf(
      acceptHello(hello, { ...hostOptions, lookupDevice: () => impostor }),
    );
    expect(error).toMatchObject({
      code: 'unauthorized',
      message: 'unknown device or bad signature',
    });
    expect(error.internalReason).toBe('hello signature did not verify');
  });

  it('refuses a revoked device with 4403', () => {
    const { device, record, hostOptions } = channelSetup();
    const revoked = { devicePk: device.publicKey, revoked: true };
    const { hello } = openChannel(record);
    const { error } = failureOf(
      acceptHello(hello, { ...hostOptions, lookupDevice: () => revoked }),
    );
    expect(error.code).toBe('device_revoked');
    expect(error.closeCode).toBe(CloseCode.revoked);
  });

  it('answers hello v:[2] with unsupported_version (4426)', () => {
    const { record, hostOptions } = channelSetup();
    const { hello } = openChannel(record);
    const { error } = failureOf(acceptHello({ ...hello, v: [2] }, hostOptions));
    expect(error.code).toBe('unsupported_version');
    expect(error.closeCode).toBe(CloseCode.unsupportedVersion);
  });

  it('refuses an all-zero ephemeral key in hello with 4400', () => {
    const { device, record, hostOptions } = channelSetup();
    const hello = signedHello(record, device, new Uint8Array(32));
    const { error } = failureOf(acceptHello(hello, hostOptions));
    expect(error.code).toBe('protocol_error');
    expect(error.closeCode).toBe(CloseCode.protocolError);
    expect(error.internalReason).toBe('all-zero ephemeral key');
  });

  it('refuses a hello key that makes an all-zero shared secret with 4400', () => {
    const { device, record, hostOptions } = channelSetup();
    const hello = signedHello(record, device, LOW_ORDER_POINT);
    const { error } = failureOf(acceptHello(hello, hostOptions));
    expect(error.code).toBe('protocol_error');
    expect(error.internalReason).toBe('all-zero shared secret');
  });

  it('makes the device refuse a welcome signed by another host key', () => {
    const { record } = channelSetup();
    const { hello, channel } = openChannel(record);
    const welcome = signedWelcome(hello, createIdentity(), record, nacl.box.keyPair().publicKey);
    const { error } = failureOf(channel.receiveWelcome(JSON.stringify(welcome)));
    expect(error).toMatchObject({ code: 'unauthorized', message: 'host identity changed' });
  });

  it('makes the device refuse an all-zero or low-order welcome key', () => {
    const { host, record } = channelSetup();
    for (const [eph, reason] of [
      [new Uint8Array(32), 'all-zero ephemeral key'],
      [LOW_ORDER_POINT, 'all-zero shared secret'],
    ] as const) {
      const { hello, channel } = openChannel(record);
      const { error } = failureOf(channel.receiveWelcome(signedWelcome(hello, host, record, eph)));
      expect(error).toMatchObject({ code: 'protocol_error', internalReason: reason });
    }
  });

  it('makes the device refuse welcome v:2 and a second welcome', () => {
    const { host, record } = channelSetup();
    const { hello, channel } = openChannel(record);
    const welcome = signedWelcome(hello, host, record, nacl.box.keyPair().publicKey);
    expect(failureOf(channel.receiveWelcome({ ...welcome, v: 2 })).error.code).toBe(
      'unsupported_version',
    );
    expect(failureOf(channel.receiveWelcome(welcome)).error.message).toBe('unexpected welcome');
  });

  it("reports the host's error frame on the device", () => {
    const { device, record, hostOptions } = channelSetup();
    const { hello, channel } = openChannel(record);
    const revoked = { devicePk: device.publicKey, revoked: true };
    const refused = failureOf(acceptHello(hello, { ...hostOptions, lookupDevice: () => revoked }));
    const frame = JSON.stringify(handshakeErrorFrame(refused.error));
    expect(failureOf(channel.receiveWelcome(frame)).error).toMatchObject({
      code: 'device_revoked',
      message: 'device revoked',
    });
  });
});
