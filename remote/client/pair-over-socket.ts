/**
 * Pairing with a host from a scanned link (docs/protocol.md §3), over a fresh socket.
 */
import {
  type Identity,
  type PairedHost,
  type PairLink,
  type RandomBytes,
  startPairing,
} from '../../pairing/index.js';
import { handshake, handshakeText, type HandshakeOptions } from './frame-socket.js';
import { channelUrl } from './websocket.js';

/** The device pairing, and how to reach the host. */
export interface PairOverSocketOptions extends HandshakeOptions {
  identity: Identity;
  /** This device as the host will list it: at most 64 characters. */
  name: string;
  /** e.g. `ios`, `macos`, `node`: at most 32 characters. */
  platform: string;
  randomBytes?: RandomBytes;
}

/**
 * Runs `pair` → `pair_challenge` → `pair_confirm` → `paired` on `<origin>/v1/ws`. Resolves
 * with the record to keep and the SAS to show; rejects with a TetherError (`pair_failed`
 * for every refusal, "this is not the host you scanned" for a host signing with another key).
 */
export function pairOverSocket(
  link: PairLink,
  options: PairOverSocketOptions,
): Promise<{ host: PairedHost; sas: string }> {
  const { identity, name, platform, randomBytes } = options;
  return handshake(channelUrl(link.origin), options, async (socket) => {
    const { pair, pairing } = startPairing({
      link,
      identity,
      name,
      platform,
      ...(randomBytes === undefined ? {} : { randomBytes }),
    });
    socket.send(JSON.stringify(pair));
    const challenged = pairing.receiveChallenge(handshakeText(await socket.next()));
    if (!challenged.ok) throw challenged.error;
    socket.send(JSON.stringify(challenged.confirm));
    const paired = pairing.receivePaired(handshakeText(await socket.next()));
    if (!paired.ok) throw paired.error;
    socket.close(1000);
    return { host: paired.host, sas: paired.sas };
  });
}
