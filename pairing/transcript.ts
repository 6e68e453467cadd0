/**
 * The transcripts that signatures and key derivations bind (docs/protocol.md sections 0, 3 and 4).
 */
import { concatBytes, u16be, utf8 } from '../protocol/index.js';
import { rawPeerId } from './identity.js';

/** Domain-separation labels: every signature, transcript and HKDF info string of v1. */
export const Label = {
  pairKey: 'tether/v1/pair-key',
  pairHost: 'tether/v1/pair-host',
  pairDevice: 'tether/v1/pair-device',
  sas: 'tether/v1/sas',
  hello: 'tether/v1/hello',
  welcome: 'tether/v1/welcome',
  keys: 'tether/v1/keys',
} as const;

/** `T(label, p1, …, pn) = utf8(label) ‖ u16be(len p1) ‖ p1 ‖ … ‖ u16be(len pn) ‖ pn`. */
function transcript(label: string, ...parts: Uint8Array[]): Uint8Array {
  return concatBytes(utf8(label), ...parts.flatMap((part) => [u16be(part.length), part]));
}

/** The values one pairing binds: both signatures and the SAS cover all five. */
export interface PairBinding {
  offerId: Uint8Array;
  hostPk: Uint8Array;
  devicePk: Uint8Array;
  nonceC: Uint8Array;
  nonceH: Uint8Array;
}

/** `Thost`, `Tdev` or the SAS input, by label, over the same five values in the same order. */
export function pairTranscript(
  label: typeof Label.pairHost | typeof Label.pairDevice | typeof Label.sas,
  binding: PairBinding,
): Uint8Array {
  const { offerId, hostPk, devicePk, nonceC, nonceH } = binding;
  return transcript(label, offerId, hostPk, devicePk, nonceC, nonceH);
}

/** `Thello = T("tether/v1/hello", raw(hostId), raw(deviceId), ecPk, nonceC)`. */
export function helloTranscript(
  hostId: string,
  deviceId: string,
  ecPk: Uint8Array,
  nonceC: Uint8Array,
): Uint8Array {
  return transcript(Label.hello, rawPeerId(hostId), rawPeerId(deviceId), ecPk, nonceC);
}

/** `Twelcome = T("tether/v1/welcome", raw(hostId), raw(deviceId), ecPk, ehPk, nonceC)`. */
export function welcomeTranscript(
  hostId: string,
  deviceId: string,
  ecPk: Uint8Array,
  ehPk: Uint8Array,
  nonceC: Uint8Array,
): Uint8Array {
  return transcript(Label.welcome, rawPeerId(hostId), rawPeerId(deviceId), ecPk, ehPk, nonceC);
}
