/**
 * The host's side of opening a channel (docs/protocol.md §4): `hello` → `welcome` and
 * the frame cipher.
 */
import { z } from 'zod/mini';
import {
  b64u,
  fromB64u,
  HelloMessage,
  parseWith,
  PROTOCOL_VERSION,
  WelcomeMessage,
} from '../protocol/index.js';
import { type ChannelCrypto, pureJsCrypto } from './channel-crypto.js';
import { FrameCipher, type FrameCipherOptions } from './frame-cipher.js';
import {
  decodeFrame,
  HandshakeError,
  type HandshakeResult,
  parseFrame,
  settle,
} from './handshake-frame.js';
import type { Identity } from './identity.js';
import { channelKeys, sharedSecret } from './key-schedule.js';
import { type RandomBytes, secureRandomBytes } from './random.js';
import { helloTranscript, welcomeTranscript } from './transcript.js';

/** What the host knows about a paired device. */
export interface KnownDevice {
  devicePk: Uint8Array;
  revoked: boolean;
}

export interface HelloOptions {
  identity: Identity;
  /** The paired device with this id, revoked or not; undefined when there is none. */
  lookupDevice: (deviceId: string) => KnownDevice | undefined;
  /** `conn` of the welcome: this connection's id. */
  connectionId: string;
  /** `instance` of the welcome: changes at every host start. */
  instanceId: string;
  /** Called once, for the ephemeral X25519 secret key (32 bytes). */
  randomBytes?: RandomBytes;
  /** Signatures, key agreement and the frame cipher's secretbox; default {@link pureJsCrypto}. */
  crypto?: ChannelCrypto;
  cipher?: Omit<FrameCipherOptions, 'crypto'>;
}

export type HelloResult = HandshakeResult<{
  deviceId: string;
  welcome: WelcomeMessage;
  cipher: FrameCipher;
}>;

const OfferedVersions = z.object({ v: z.array(z.number()) });

/**
 * Answers a `hello` text frame (JSON text or parsed). Failures, in the protocol's order:
 * no common version (4426), unknown device or bad signature (4401, one message for both),
 * revoked (4403), an all-zero or low-order ephemeral key (4400). On success send `welcome`;
 * every later frame goes through `cipher`. Throws `invalid_request` only when
 * `connectionId` or `instanceId` does not fit the protocol.
 */
export function acceptHello(frame: unknown, options: HelloOptions): HelloResult {
  const {
    identity,
    lookupDevice,
    randomBytes = secureRandomBytes,
    crypto = pureJsCrypto,
  } = options;
  return settle(() => {
    const value = decodeFrame(frame);
    const offered = OfferedVersions.safeParse(value);
    if (offered.success && !offered.data.v.includes(PROTOCOL_VERSION)) {
      throw new HandshakeError(
        'unsupported_version',
        `no common protocol version: the host speaks ${PROTOCOL_VERSION}`,
        `hello offered versions ${offered.data.v.join(',')}`,
      );
    }
    const hello = parseFrame(HelloMessage, value, 'hello');
    const ecPk = fromB64u(hello.eph);
    const nonceC = fromB64u(hello.nonce);
    const device = lookupDevice(hello.device);
    if (device === undefined) throw unauthorized('unknown device');
    const signed = helloTranscript(identity.id, hello.device, ecPk, nonceC);
    if (!crypto.verify(signed, fromB64u(hello.sig), device.devicePk)) {
      throw unauthorized('hello signature did not verify');
    }
    if (device.revoked) throw new HandshakeError('device_revoked', 'device revoked', 'revoked');
    const ehSk = randomBytes(32);
    try {
      const ehPk = crypto.scalarMultBase(ehSk);
      const transcript = welcomeTranscript(identity.id, hello.device, ecPk, ehPk, nonceC);
      const welcome = parseWith(
        WelcomeMessage,
        {
          t: 'welcome',
          v: PROTOCOL_VERSION,
          eph: b64u(ehPk),
          sig: b64u(crypto.sign(transcript, identity.secretKey)),
          conn: options.connectionId,
          instance: options.instanceId,
        },
        'welcome',
      );
      const dh = sharedSecret(ehSk, ecPk, crypto);
      const keys = channelKeys(dh, transcript);
      dh.fill(0);
      const cipher = new FrameCipher(
        { sendKey: keys.h2c, receiveKey: keys.c2h },
        { ...options.cipher, crypto },
      );
      return { deviceId: hello.device, welcome, cipher };
    } finally {
      ehSk.fill(0);
    }
  });
}

function unauthorized(internalReason: string): HandshakeError {
  return new HandshakeError('unauthorized', 'unknown device or bad signature', internalReason);
}
