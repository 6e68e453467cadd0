/**
 * Every implementation of the channel's primitives (tweetnacl, libsodium, OpenSSL) against
 * the protocol vectors, the refusals of bad keys and signatures, and against each other.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acceptHello, type ChannelCrypto, FrameCipher, openChannel } from '../../pairing/index.js';
import {
  frameNonce,
  pureJsCrypto,
  helloTranscript,
  identityFromSeed,
  Label,
  pairTranscript,
  sharedSecret,
  welcomeTranscript,
} from '../../pairing/testing.js';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import { loadSodiumCrypto, opensslCrypto } from '../../pairing/node/testing.js';
import { b64u, bytesToHex, JsonObject } from '../../protocol/index.js';
import { hex, ORIGIN, scriptedRandom, vectors } from './fixtures.js';

const { identities: ids, pairing: pv, channel: cv, rejections: rv } = vectors;

const implementations: [string, ChannelCrypto][] = [
  ['tweetnacl', pureJsCrypto],
  ['libsodium', loadSodiumCrypto()],
  ['OpenSSL', opensslCrypto()],
];

/** Points of order 1, 2, 4 and 8 on Curve25519 (and their non-canonical encodings). */
const LOW_ORDER_POINTS = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];

it('loads libsodium here, as the host and the Node client will', () => {
  const native = nativeChannelCrypto();
  expect(native.sodiumError).toBeUndefined();
  expect(native.crypto.name).toContain('libsodium');
});

describe.each(implementations)('%s', (_name, crypto) => {
  const host = identityFromSeed(hex(ids.host_seed), crypto);
  const device = identityFromSeed(hex(ids.device_seed), crypto);
  const binding = {
    offerId: hex(pv.offer_id),
    hostPk: hex(ids.host_pk),
    devicePk: hex(ids.device_pk),
    nonceC: hex(pv.nonce_c),
    nonceH: hex(pv.nonce_h),
  };
  const tHello = helloTranscript(ids.host_id, ids.device_id, hex(cv.ec_pk), hex(cv.hello_nonce));
  const tWelcome = welcomeTranscript(
    ids.host_id,
    ids.device_id,
    hex(cv.ec_pk),
    hex(cv.eh_pk),
    hex(cv.hello_nonce),
  );

  it('derives the vector identities from their seeds', () => {
    expect(bytesToHex(host.publicKey)).toBe(ids.host_pk);
    expect(host.id).toBe(ids.host_id);
    expect(bytesToHex(device.publicKey)).toBe(ids.device_pk);
    expect(bytesToHex(device.secretKey)).toBe(ids.device_seed + ids.device_pk);
  });

  it('makes the vector signatures and verifies them', () => {
    const signatures = [
      [pairTranscript(Label.pairHost, binding), host, pv.sig_host],
      [pairTranscript(Label.pairDevice, binding), device, pv.sig_device],
      [tHello, device, cv.sig_hello],
      [tWelcome, host, cv.sig_welcome],
    ] as const;
    for (const [message, signer, signature] of signatures) {
      expect(bytesToHex(crypto.sign(message, signer.secretKey))).toBe(signature);
      expect(crypto.verify(message, hex(signature), signer.publicKey)).toBe(true);
    }
  });

  it('refuses a changed signature, a changed message, another key and wrong lengths', () => {
    const signature = hex(cv.sig_hello);
    const flipped = signature.slice();
    flipped[10]! ^= 1;
    const changed = tHello.slice();
    changed[0]! ^= 1;
    expect(crypto.verify(tHello, flipped, device.publicKey)).toBe(false);
    expect(crypto.verify(changed, signature, device.publicKey)).toBe(false);
    expect(crypto.verify(tHello, signature, host.publicKey)).toBe(false);
    expect(crypto.verify(tHello, signature.subarray(0, 63), device.publicKey)).toBe(false);
    expect(crypto.verify(tHello, new Uint8Array([...signature, 0]), device.publicKey)).toBe(false);
    expect(crypto.verify(tHello, signature, device.publicKey.subarray(0, 31))).toBe(false);
    expect(crypto.verify(tHello, new Uint8Array(64), new Uint8Array(32))).toBe(false);
  });

  it('derives the ephemeral keys and the shared secret of the vectors', () => {
    expect(bytesToHex(crypto.scalarMultBase(hex(cv.ec_sk)))).toBe(cv.ec_pk);
    expect(bytesToHex(crypto.scalarMultBase(hex(cv.eh_sk)))).toBe(cv.eh_pk);
    expect(bytesToHex(sharedSecret(hex(cv.ec_sk), hex(cv.eh_pk), crypto))).toBe(cv.dh);
    expect(bytesToHex(sharedSecret(hex(cv.eh_sk), hex(cv.ec_pk), crypto))).toBe(cv.dh);
  });

  it('refuses the all-zero key and every low-order point', () => {
    expect(() => sharedSecret(hex(cv.ec_sk), hex(rv.zero_x25519_pk), crypto)).toThrow(
      expect.objectContaining({ code: 'protocol_error', internalReason: 'all-zero ephemeral key' }),
    );
    for (const point of LOW_ORDER_POINTS) {
      expect(bytesToHex(crypto.scalarMult(hex(cv.ec_sk), hex(point)))).toBe(
        rv.zero_pk_shared_secret,
      );
      expect(() => sharedSecret(hex(cv.ec_sk), hex(point), crypto)).toThrow(
        expect.objectContaining({ internalReason: 'all-zero shared secret' }),
      );
    }
  });

  it('seals and opens the vector frames', () => {
    const deviceSide = new FrameCipher(
      { sendKey: hex(cv.k_c2h), receiveKey: hex(cv.k_h2c) },
      { crypto },
    );
    const hostSide = new FrameCipher(
      { sendKey: hex(cv.k_h2c), receiveKey: hex(cv.k_c2h) },
      { crypto },
    );
    const c2h = JsonObject.parse(JSON.parse(cv.c2h_message_json));
    expect(bytesToHex(deviceSide.seal(c2h))).toBe(cv.c2h_frame_counter_0);
    expect(bytesToHex(deviceSide.seal(c2h))).toBe(cv.c2h_frame_counter_1);
    const h2c = JsonObject.parse(JSON.parse(cv.h2c_message_json));
    expect(bytesToHex(hostSide.seal(h2c))).toBe(cv.h2c_frame_counter_0);
    expect(hostSide.open(hex(cv.c2h_frame_counter_0))).toEqual(c2h);
    expect(hostSide.open(hex(cv.c2h_frame_counter_1))).toEqual(c2h);
    expect(deviceSide.open(hex(cv.h2c_frame_counter_0))).toEqual(h2c);
  });

  it('opens no box that was changed, cut short or sealed under another key or nonce', () => {
    const key = hex(cv.k_h2c);
    const box = crypto.secretbox(new Uint8Array(300).fill(7), frameNonce(3), key);
    const changed = box.slice();
    changed[100]! ^= 1;
    expect(crypto.secretboxOpen(box, frameNonce(3), key)).toEqual(new Uint8Array(300).fill(7));
    expect(crypto.secretboxOpen(changed, frameNonce(3), key)).toBeNull();
    expect(crypto.secretboxOpen(box.subarray(0, 15), frameNonce(3), key)).toBeNull();
    expect(crypto.secretboxOpen(box, frameNonce(4), key)).toBeNull();
    expect(crypto.secretboxOpen(box, frameNonce(3), hex(cv.k_c2h))).toBeNull();
  });

  it('runs both handshakes to the vector hello, welcome and frames', () => {
    const record = {
      origin: ORIGIN,
      hostId: ids.host_id,
      hostPk: b64u(host.publicKey),
      hostName: 'Mac mini',
      deviceId: ids.device_id,
      deviceSeed: b64u(hex(ids.device_seed)),
    };
    const { hello, channel } = openChannel(record, {
      crypto,
      randomBytes: scriptedRandom(hex(cv.ec_sk), hex(cv.hello_nonce)),
    });
    expect(hello.sig).toBe(b64u(hex(cv.sig_hello)));
    const accepted = acceptHello(hello, {
      identity: host,
      crypto,
      lookupDevice: () => ({ devicePk: device.publicKey, revoked: false }),
      connectionId: 'conn_1',
      instanceId: 'inst_1',
      randomBytes: scriptedRandom(hex(cv.eh_sk)),
    });
    if (!accepted.ok) throw accepted.error;
    expect(accepted.welcome.sig).toBe(b64u(hex(cv.sig_welcome)));
    expect(accepted.welcome.eph).toBe(b64u(hex(cv.eh_pk)));
    const welcomed = channel.receiveWelcome(accepted.welcome);
    if (!welcomed.ok) throw welcomed.error;
    const c2h = JsonObject.parse(JSON.parse(cv.c2h_message_json));
    expect(bytesToHex(welcomed.cipher.seal(c2h))).toBe(cv.c2h_frame_counter_0);
    expect(
      bytesToHex(accepted.cipher.seal(JsonObject.parse(JSON.parse(cv.h2c_message_json)))),
    ).toBe(cv.h2c_frame_counter_0);
  });
});

describe('the implementations against each other', () => {
  it('give the same boxes for frame sizes the channel sends (200 B to 64 KiB)', () => {
    const key = randomBytes(32);
    for (const size of [0, 1, 200, 1000, 4096, 16 * 1024, 65_536]) {
      const plaintext = randomBytes(size);
      const boxes = implementations.map(([, crypto]) =>
        bytesToHex(crypto.secretbox(plaintext, frameNonce(size), key)),
      );
      expect(new Set(boxes).size).toBe(1);
      for (const [, crypto] of implementations) {
        expect(crypto.secretboxOpen(hex(boxes[0]!), frameNonce(size), key)).toEqual(
          new Uint8Array(plaintext),
        );
      }
    }
  });

  it('open a channel between any two of them and carry frames both ways', () => {
    for (const [, deviceCrypto] of implementations) {
      for (const [, hostCrypto] of implementations) {
        const host = identityFromSeed(randomBytes(32), hostCrypto);
        const device = identityFromSeed(randomBytes(32));
        const { hello, channel } = openChannel(
          {
            origin: ORIGIN,
            hostId: host.id,
            hostPk: b64u(host.publicKey),
            hostName: 'Mac mini',
            deviceId: device.id,
            deviceSeed: b64u(device.secretKey.subarray(0, 32)),
          },
          { crypto: deviceCrypto },
        );
        const accepted = acceptHello(hello, {
          identity: host,
          crypto: hostCrypto,
          lookupDevice: () => ({ devicePk: device.publicKey, revoked: false }),
          connectionId: 'conn_1',
          instanceId: 'inst_1',
        });
        if (!accepted.ok) throw accepted.error;
        const welcomed = channel.receiveWelcome(accepted.welcome);
        if (!welcomed.ok) throw welcomed.error;
        expect(accepted.cipher.open(welcomed.cipher.seal({ t: 'ping' }))).toEqual({ t: 'ping' });
        expect(welcomed.cipher.open(accepted.cipher.seal({ t: 'pong' }))).toEqual({ t: 'pong' });
      }
    }
  });
});
