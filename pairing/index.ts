/**
 * pairing/: identities, the pairing handshake, the channel handshake and frame crypto
 * (docs/protocol.md sections 1 and 3-5). Pure functions and small state machines over bytes
 * and plain objects; the host's server and the remote's client drive them with frames.
 * Handshake steps return failures as data ({@link HandshakeResult}); the frame cipher
 * throws, since a frame that fails ends the connection.
 */
export { type RandomBytes, secureRandomBytes } from './random.js';
export {
  createIdentity,
  deserializeIdentity,
  type Identity,
  serializeIdentity,
} from './identity.js';
export { handshakeErrorFrame } from './handshake-frame.js';
export { formatPairLink, type PairLink, parsePairLink } from './pair-link.js';
export { createPairOffer, MAX_FAILED_ATTEMPTS, type PairOffer } from './pair-offer.js';
export { PairedHost } from './paired-host.js';
export { startPairing } from './pairing-device.js';
export { acceptPair, type HostPairing, type PairedDevice } from './pairing-host.js';
export { openChannel } from './channel-device.js';
export { acceptHello } from './channel-host.js';
export { FrameCipher } from './frame-cipher.js';
export type { ChannelCrypto } from './channel-crypto.js';
