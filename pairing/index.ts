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
  identityFromSeed,
  peerIdOf,
  rawPeerId,
  SerializedIdentity,
  serializeIdentity,
} from './identity.js';
export {
  helloTranscript,
  Label,
  type PairBinding,
  pairTranscript,
  transcript,
  welcomeTranscript,
} from './transcript.js';
export {
  type ChannelKeys,
  channelKeys,
  hkdfSha256,
  pairKey,
  sharedSecret,
  shortAuthString,
} from './key-schedule.js';
export {
  HandshakeError,
  handshakeErrorFrame,
  type HandshakeFailure,
  type HandshakeResult,
} from './handshake-frame.js';
export { formatPairLink, type PairLink, pairLinkFragment, parsePairLink } from './pair-link.js';
export {
  createPairOffer,
  MAX_FAILED_ATTEMPTS,
  PAIR_OFFER_TTL_MS,
  type PairOffer,
} from './pair-offer.js';
export { sealPairBox, openPairBox } from './pair-box.js';
export { PairedHost, parsePairedHost } from './paired-host.js';
export { type DevicePairing, type DevicePairingOptions, startPairing } from './pairing-device.js';
export {
  acceptPair,
  type HostPairing,
  type HostPairingOptions,
  type PairAcceptResult,
  type PairConfirmResult,
  type PairedDevice,
  type PairingFailure,
} from './pairing-host.js';
export {
  type DeviceChannel,
  type DeviceChannelOptions,
  openChannel,
  type WelcomeResult,
} from './channel-device.js';
export {
  acceptHello,
  type HelloOptions,
  type HelloResult,
  type KnownDevice,
} from './channel-host.js';
export {
  FrameCipher,
  type FrameCipherOptions,
  type FrameKeys,
  frameNonce,
  REKEY_AFTER_FRAMES,
  REKEY_AFTER_MS,
} from './frame-cipher.js';
