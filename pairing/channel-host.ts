/**
 * The host's side of opening a channel (docs/protocol.md §4): `hello` → `welcome` and
 * the frame cipher.
 */
import { z } from 'zod/mini';
import {
  b64u,
  fromB64u,
  HelloMessage,
  isB64uOfLength,
  PROTOCOL_VERSION,
  TetherError,
  type WelcomeMessage,
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

/** The most versions a hello may offer (HelloMessage's `v`). */
const MAX_OFFERED = 16;

/**
 * `value` as a hello when it certainly fits {@link HelloMessage} (what every device sends),
 * checked by hand; else undefined, and zod gives the answer and its issues. zod would
 * return the same fields (its object drops unknown keys).
 */
function plainHello(value: unknown): HelloMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { t, v, device, eph, nonce, sig } = value as Record<string, unknown>;
  const fits =
    t === 'hello' &&
    Array.isArray(v) &&
    v.length >= 1 &&
    v.length <= MAX_OFFERED &&
    v.every((version) => Number.isSafeInteger(version)) &&
    typeof device === 'string' &&
    isB64uOfLength(device, 16) &&
    typeof eph === 'string' &&
    isB64uOfLength(eph, 32) &&
    typeof nonce === 'string' &&
    isB64uOfLength(nonce, 16) &&
    typeof sig === 'string' &&
    isB64uOfLength(sig, 64);
  return fits ? { t, v: v as number[], device, eph, nonce, sig } : undefined;
}

function requireCommonVersion(offered: readonly number[]): void {
  if (offered.includes(PROTOCOL_VERSION)) return;
  throw new HandshakeError(
    'unsupported_version',
    `no common protocol version: the host speaks ${PROTOCOL_VERSION}`,
    `hello offered versions ${offered.join(',')}`,
  );
}

/** The hello in `value`: no common version first (4426), then its shape (4400). */
function readHello(value: unknown): HelloMessage {
  const hello = plainHello(value);
  if (hello !== undefined) {
    requireCommonVersion(hello.v);
    return hello;
  }
  const offered = OfferedVersions.safeParse(value);
  if (offered.success) requireCommonVersion(offered.data.v);
  return parseFrame(HelloMessage, value, 'hello');
}

/** An id of the welcome (`conn`, `instance`): 1-128 characters, the host's own. */
function welcomeId(id: string, field: string): string {
  if (id.length >= 1 && id.length <= 128) return id;
  throw new TetherError('invalid_request', `invalid welcome: ${field}: expected 1-128 characters`);
}

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
    const hello = readHello(decodeFrame(frame));
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
      // Built here from what the host made: it fits WelcomeMessage without a parse.
      const welcome: WelcomeMessage = {
        t: 'welcome',
        v: PROTOCOL_VERSION,
        eph: b64u(ehPk),
        sig: b64u(crypto.sign(transcript, identity.secretKey)),
        conn: welcomeId(options.connectionId, 'conn'),
        instance: welcomeId(options.instanceId, 'instance'),
      };
      const dh = sharedSecret(ehSk, ecPk, crypto);
      const keys = channelKeys(dh, transcript, crypto.hashes);
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
