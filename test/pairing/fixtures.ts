/**
 * Shared test material: the protocol vectors, scripted randomness, and the two sides of
 * pairing and of a channel driven against each other in memory.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { hexToBytes } from '../../protocol/testing.js';
import {
  acceptHello,
  acceptPair,
  createIdentity,
  createPairOffer,
  type Identity,
  openChannel,
  type PairedHost,
  type PairOffer,
  parsePairLink,
  formatPairLink,
  type RandomBytes,
  startPairing,
} from '../../pairing/index.js';
import { type FrameCipherOptions, type KnownDevice } from '../../pairing/testing.js';

const Hex = z.string().regex(/^([0-9a-f]{2})*$/);

const Vectors = z.object({
  identities: z.object({
    host_seed: Hex,
    host_pk: Hex,
    host_id: z.string(),
    device_seed: Hex,
    device_pk: Hex,
    device_id: z.string(),
  }),
  pairing: z.object({
    offer_id: Hex,
    psk: Hex,
    link_fragment: z.string(),
    pair_key: Hex,
    nonce_c: Hex,
    nonce_h: Hex,
    pair_payload_json: z.string(),
    box_nonce: Hex,
    pair_box_b64u: z.string(),
    transcript_host: Hex,
    sig_host: Hex,
    transcript_device: Hex,
    sig_device: Hex,
    sas: z.string(),
  }),
  channel: z.object({
    ec_sk: Hex,
    ec_pk: Hex,
    eh_sk: Hex,
    eh_pk: Hex,
    hello_nonce: Hex,
    transcript_hello: Hex,
    sig_hello: Hex,
    transcript_welcome: Hex,
    sig_welcome: Hex,
    dh: Hex,
    k_c2h: Hex,
    k_h2c: Hex,
    frame_nonce_0: Hex,
    frame_nonce_1: Hex,
    frame_nonce_258: Hex,
    c2h_message_json: z.string(),
    c2h_frame_counter_0: Hex,
    c2h_frame_counter_1: Hex,
    h2c_message_json: z.string(),
    h2c_frame_counter_0: Hex,
  }),
  digests: z.object({
    approval_value: z.unknown(),
    approval_jcs: z.string(),
    approval_digest: z.string(),
    command_value: z.unknown(),
    command_args_digest: z.string(),
    number_jcs: z.object({ value: z.unknown(), jcs: z.string() }),
  }),
  rejections: z.object({ zero_x25519_pk: Hex, zero_pk_shared_secret: Hex }),
});

/** The test vectors of docs/protocol.md (test/fixtures/protocol-vectors.json). */
export const vectors = Vectors.parse(
  JSON.parse(readFileSync(new URL('../fixtures/protocol-vectors.json', import.meta.url), 'utf8')),
);

/** Fresh bytes of a hex string (callers may zero what they are given). */
export const hex = (text: string): Uint8Array => hexToBytes(text);

/** Randomness that hands out `chunks` in order, each a copy, checking the requested size. */
export function scriptedRandom(...chunks: Uint8Array[]): RandomBytes {
  const queue = [...chunks];
  return (length) => {
    const next = queue.shift();
    if (next === undefined) throw new Error(`scripted randomness exhausted (wanted ${length})`);
    if (next.length !== length)
      throw new Error(`wanted ${length} random bytes, script has ${next.length}`);
    return next.slice();
  };
}

export const ORIGIN = 'http://localhost:8787';
export const NOW = 1_700_000_000_000;

/** A host with one fresh offer, and a device holding the offer's link. */
export function pairingSetup() {
  const host = createIdentity();
  const device = createIdentity();
  const offer = createPairOffer(NOW);
  const offers = new Map<string, PairOffer>([[offer.offerId, offer]]);
  const link = parsePairLink(
    formatPairLink({
      origin: ORIGIN,
      offerId: offer.offerId,
      psk: offer.psk,
      hostPk: host.publicKey,
    }),
  );
  const hostOptions = {
    identity: host,
    hostName: 'Mac mini',
    now: NOW,
    lookupOffer: (offerId: string) => offers.get(offerId),
  };
  return { host, device, offer, offers, link, hostOptions };
}

/** Drives both pairing state machines to the end, frames as JSON text. */
export function pairInMemory(setup = pairingSetup()) {
  const { device, link, hostOptions } = setup;
  const { pair, pairing } = startPairing({
    link,
    identity: device,
    name: 'Test iPhone',
    platform: 'ios',
  });
  const accepted = acceptPair(JSON.stringify(pair), hostOptions);
  if (!accepted.ok) throw accepted.error;
  const challenged = pairing.receiveChallenge(JSON.stringify(accepted.challenge));
  if (!challenged.ok) throw challenged.error;
  const confirmed = accepted.pairing.confirm(JSON.stringify(challenged.confirm));
  if (!confirmed.ok) throw confirmed.error;
  const paired = pairing.receivePaired(JSON.stringify(confirmed.paired));
  if (!paired.ok) throw paired.error;
  return { ...setup, hostSide: confirmed, deviceSide: paired };
}

/** Opens a channel between a paired device record and its host. */
export function openInMemory(
  host: Identity,
  record: PairedHost,
  known: KnownDevice,
  cipher: FrameCipherOptions = {},
) {
  const { hello, channel } = openChannel(record, { cipher });
  const accepted = acceptHello(JSON.stringify(hello), {
    identity: host,
    lookupDevice: (deviceId) => (deviceId === record.deviceId ? known : undefined),
    connectionId: 'conn_1',
    instanceId: 'inst_1',
    cipher,
  });
  if (!accepted.ok) throw accepted.error;
  const welcomed = channel.receiveWelcome(JSON.stringify(accepted.welcome));
  if (!welcomed.ok) throw welcomed.error;
  return { host: accepted.cipher, device: welcomed.cipher, welcome: accepted.welcome };
}

/** The failure a handshake step returned; throws when it succeeded. */
export function failureOf<R extends { ok: boolean }>(result: R): Extract<R, { ok: false }> {
  if (result.ok) throw new Error('expected the step to fail');
  return result as Extract<R, { ok: false }>;
}
