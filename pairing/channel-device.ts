/**
 * A device's side of opening a channel (docs/protocol.md §4): `hello`, then `welcome`
 * and the frame cipher.
 */
import {
  b64u,
  fromB64u,
  type HelloMessage,
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
  requireVersion,
  settle,
  throwIfErrorFrame,
} from './handshake-frame.js';
import { identityFromSeed } from './identity.js';
import { channelKeys, sharedSecret } from './key-schedule.js';
import type { PairedHost } from './paired-host.js';
import { type RandomBytes, secureRandomBytes } from './random.js';
import { helloTranscript, welcomeTranscript } from './transcript.js';

export interface DeviceChannelOptions {
  /** Called for the ephemeral X25519 secret key (32 bytes), then for nonceC (16 bytes). */
  randomBytes?: RandomBytes;
  /** Signatures, key agreement and the frame cipher's secretbox; default {@link pureJsCrypto}. */
  crypto?: ChannelCrypto;
  cipher?: Omit<FrameCipherOptions, 'crypto'>;
}

export type WelcomeResult = HandshakeResult<{
  cipher: FrameCipher;
  /** `conn`: the host's id for this connection. */
  connectionId: string;
  /** `instance`: a new one means the host restarted (the cursor stays valid). */
  instanceId: string;
}>;

/** A channel opening after `hello` was sent; it takes exactly one answer. */
export interface DeviceChannel {
  /**
   * Checks `welcome` against the stored `hostPk` (failure: "host identity changed", 4401)
   * and derives the keys; or reports the host's `{"t":"error"}` as the failure.
   */
  receiveWelcome(frame: unknown): WelcomeResult;
}

/** Starts a connection to a paired host: returns the `hello` to send as the first text frame. */
export function openChannel(
  host: PairedHost,
  options: DeviceChannelOptions = {},
): { hello: HelloMessage; channel: DeviceChannel } {
  const { randomBytes = secureRandomBytes, crypto = pureJsCrypto } = options;
  const device = identityFromSeed(fromB64u(host.deviceSeed), crypto);
  const ecSk = randomBytes(32);
  const ecPk = crypto.scalarMultBase(ecSk);
  const nonceC = randomBytes(16);
  const signed = helloTranscript(host.hostId, host.deviceId, ecPk, nonceC);
  const hello: HelloMessage = {
    t: 'hello',
    v: [PROTOCOL_VERSION],
    device: host.deviceId,
    eph: b64u(ecPk),
    nonce: b64u(nonceC),
    sig: b64u(crypto.sign(signed, device.secretKey)),
  };
  device.secretKey.fill(0);
  return {
    hello,
    channel: new ChannelAsDevice(host, ecSk, ecPk, nonceC, crypto, options.cipher),
  };
}

class ChannelAsDevice implements DeviceChannel {
  private answered = false;

  constructor(
    private readonly host: PairedHost,
    private readonly ecSk: Uint8Array,
    private readonly ecPk: Uint8Array,
    private readonly nonceC: Uint8Array,
    private readonly crypto: ChannelCrypto,
    private readonly cipherOptions: Omit<FrameCipherOptions, 'crypto'> | undefined,
  ) {}

  receiveWelcome(frame: unknown): WelcomeResult {
    return settle(() => {
      if (this.answered) {
        throw new HandshakeError('protocol_error', 'unexpected welcome', 'second welcome');
      }
      this.answered = true;
      try {
        const value = decodeFrame(frame);
        throwIfErrorFrame(value);
        requireVersion(value, 'welcome');
        const welcome = parseFrame(WelcomeMessage, value, 'welcome');
        const { hostId, deviceId, hostPk } = this.host;
        const ehPk = fromB64u(welcome.eph);
        const signed = welcomeTranscript(hostId, deviceId, this.ecPk, ehPk, this.nonceC);
        if (!this.crypto.verify(signed, fromB64u(welcome.sig), fromB64u(hostPk))) {
          throw new HandshakeError(
            'unauthorized',
            'host identity changed',
            'bad welcome signature',
          );
        }
        const dh = sharedSecret(this.ecSk, ehPk, this.crypto);
        const keys = channelKeys(dh, signed, this.crypto.hashes);
        dh.fill(0);
        const cipher = new FrameCipher(
          { sendKey: keys.c2h, receiveKey: keys.h2c },
          { ...this.cipherOptions, crypto: this.crypto },
        );
        return { cipher, connectionId: welcome.conn, instanceId: welcome.instance };
      } finally {
        this.ecSk.fill(0);
      }
    });
  }
}
