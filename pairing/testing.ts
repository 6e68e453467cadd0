/**
 * pairing/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { identityFromSeed, peerIdOf, rawPeerId } from './identity.js';
export type { HelloOptions, KnownDevice } from './channel-host.js';
export { helloTranscript, Label, pairTranscript, welcomeTranscript } from './transcript.js';
export { frameNonce } from './frame-cipher.js';
export type { FrameCipherOptions } from './frame-cipher.js';
export { parsePairedHost } from './paired-host.js';
export type { HostPairingOptions, PairingFailure } from './pairing-host.js';
export {
  channelKeys,
  pairKey,
  pureJsHashes,
  sharedSecret,
  shortAuthString,
} from './key-schedule.js';
export { openPairBox, sealPairBox } from './pair-box.js';
export { pairLinkFragment } from './pair-link.js';
export { pureJsCrypto } from './channel-crypto.js';
