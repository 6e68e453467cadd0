/**
 * Opening a channel to a paired host (docs/protocol.md §4): `hello`, `welcome`, keys.
 */
import {
  type ChannelCrypto,
  type FrameCipher,
  openChannel,
  type PairedHost,
  type RandomBytes,
} from '../../pairing/index.js';
import {
  type FrameSocket,
  handshake,
  handshakeText,
  type HandshakeOptions,
} from './frame-socket.js';
import { channelUrl } from './websocket.js';

/** A socket whose channel is open: every later frame goes through `cipher`. */
export interface OpenedChannel {
  socket: FrameSocket;
  cipher: FrameCipher;
  /** `conn` of the welcome. */
  connectionId: string;
  /** `instance` of the welcome: a new one means the host restarted. */
  instanceId: string;
}

/** How to open: the socket, timers, timeout and signal, and injectable randomness. */
export interface OpenChannelOptions extends HandshakeOptions {
  randomBytes?: RandomBytes;
  crypto?: ChannelCrypto;
  /** The frame cipher's clock; default `Date.now`. */
  now?: () => number;
}

/**
 * Sends `hello` and checks `welcome` against the stored host key. Rejects with the host's
 * refusal (`unauthorized` 4401, `device_revoked` 4403, `unsupported_version` 4426, …) or
 * `unauthorized` "host identity changed" when the welcome is not signed by the paired host.
 */
export function openChannelOverSocket(
  host: PairedHost,
  options: OpenChannelOptions,
): Promise<OpenedChannel> {
  const { randomBytes, crypto, now } = options;
  return handshake(channelUrl(host.origin), options, async (socket) => {
    const { hello, channel } = openChannel(host, {
      ...(randomBytes === undefined ? {} : { randomBytes }),
      ...(crypto === undefined ? {} : { crypto }),
      ...(now === undefined ? {} : { cipher: { now } }),
    });
    socket.send(JSON.stringify(hello));
    const welcomed = channel.receiveWelcome(handshakeText(await socket.next()));
    if (!welcomed.ok) throw welcomed.error;
    const { cipher, connectionId, instanceId } = welcomed;
    return { socket, cipher, connectionId, instanceId };
  });
}
