import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { b64u, bytesToHex, digest, fromUtf8 } from '../../protocol/index.js';
import { canonicalJson } from '../../protocol/testing.js';
import {
  acceptHello,
  acceptPair,
  FrameCipher,
  openChannel,
  parsePairLink,
  startPairing,
} from '../../pairing/index.js';
import {
  channelKeys,
  frameNonce,
  helloTranscript,
  identityFromSeed,
  Label,
  openPairBox,
  pairKey,
  pairLinkFragment,
  pairTranscript,
  peerIdOf,
  sealPairBox,
  sharedSecret,
  shortAuthString,
  welcomeTranscript,
} from '../../pairing/testing.js';
import { JsonObject, PairChallengePayload, PairPayload } from '../../protocol/index.js';
import { hex, ORIGIN, scriptedRandom, vectors } from './fixtures.js';

const { identities: ids, pairing: pv, channel: cv, digests: dv, rejections: rv } = vectors;
const host = identityFromSeed(hex(ids.host_seed));
const device = identityFromSeed(hex(ids.device_seed));
const binding = {
  offerId: hex(pv.offer_id),
  hostPk: hex(ids.host_pk),
  devicePk: hex(ids.device_pk),
  nonceC: hex(pv.nonce_c),
  nonceH: hex(pv.nonce_h),
};

describe('identities', () => {
  it('derives the host and device keys and ids from their seeds', () => {
    expect(bytesToHex(host.publicKey)).toBe(ids.host_pk);
    expect(host.id).toBe(ids.host_id);
    expect(bytesToHex(device.publicKey)).toBe(ids.device_pk);
    expect(device.id).toBe(ids.device_id);
    expect(peerIdOf(hex(ids.device_pk))).toBe(ids.device_id);
  });
});

describe('pairing vectors', () => {
  it('builds and parses the link fragment', () => {
    const offerId = b64u(hex(pv.offer_id));
    expect(pairLinkFragment(offerId, hex(pv.psk), host.publicKey)).toBe(pv.link_fragment);
    expect(pv.link_fragment.length - 'pair='.length).toBe(107);
    const link = parsePairLink(`${ORIGIN}/#${pv.link_fragment}`);
    expect(link.offerId).toBe(offerId);
    expect(bytesToHex(link.psk)).toBe(pv.psk);
    expect(bytesToHex(link.hostPk)).toBe(ids.host_pk);
  });

  it('derives the pair key', () => {
    expect(bytesToHex(pairKey(hex(pv.offer_id), hex(pv.psk)))).toBe(pv.pair_key);
  });

  it('seals the pair box with the given nonce and opens it to the payload', () => {
    const payload: unknown = JSON.parse(pv.pair_payload_json);
    const box = sealPairBox(PairPayload.parse(payload), hex(pv.pair_key), hex(pv.box_nonce));
    expect(box).toBe(pv.pair_box_b64u);
    const opened = openPairBox(pv.pair_box_b64u, hex(pv.pair_key), PairPayload);
    expect(JSON.stringify(opened)).toBe(pv.pair_payload_json);
  });

  it('reproduces both transcripts, both signatures and the SAS', () => {
    const tHost = pairTranscript(Label.pairHost, binding);
    const tDevice = pairTranscript(Label.pairDevice, binding);
    expect(bytesToHex(tHost)).toBe(pv.transcript_host);
    expect(bytesToHex(tDevice)).toBe(pv.transcript_device);
    expect(bytesToHex(nacl.sign.detached(tHost, host.secretKey))).toBe(pv.sig_host);
    expect(bytesToHex(nacl.sign.detached(tDevice, device.secretKey))).toBe(pv.sig_device);
    expect(shortAuthString(binding)).toBe(pv.sas);
  });

  it('runs the pairing state machines to the vector messages', () => {
    const link = parsePairLink(`${ORIGIN}/#${pv.link_fragment}`);
    const { pair, pairing } = startPairing({
      link,
      identity: device,
      name: 'Test iPhone',
      platform: 'ios',
      randomBytes: scriptedRandom(hex(pv.nonce_c), hex(pv.box_nonce)),
    });
    expect(pair).toEqual({ t: 'pair', v: 1, offer: link.offerId, box: pv.pair_box_b64u });

    const accepted = acceptPair(pair, {
      identity: host,
      hostName: 'Mac mini',
      now: 0,
      lookupOffer: (offerId) =>
        offerId === link.offerId
          ? { offerId, psk: link.psk, expiresAt: 120_000, used: false, failedAttempts: 0 }
          : undefined,
      randomBytes: scriptedRandom(hex(pv.nonce_h), new Uint8Array(24).fill(7)),
    });
    if (!accepted.ok) throw accepted.error;
    const challenge = openPairBox(accepted.challenge.box, hex(pv.pair_key), PairChallengePayload);
    expect(challenge?.sig).toBe(b64u(hex(pv.sig_host)));
    expect(challenge?.nonce).toBe(b64u(hex(pv.nonce_h)));

    const challenged = pairing.receiveChallenge(accepted.challenge);
    if (!challenged.ok) throw challenged.error;
    expect(challenged.confirm).toEqual({ t: 'pair_confirm', sig: b64u(hex(pv.sig_device)) });

    const confirmed = accepted.pairing.confirm(challenged.confirm);
    if (!confirmed.ok) throw confirmed.error;
    expect(confirmed.paired).toEqual({
      t: 'paired',
      hostId: ids.host_id,
      deviceId: ids.device_id,
      sas: pv.sas,
    });
    const paired = pairing.receivePaired(confirmed.paired);
    if (!paired.ok) throw paired.error;
    expect(paired.sas).toBe(pv.sas);
  });
});

describe('channel vectors', () => {
  const ecPk = hex(cv.ec_pk);
  const ehPk = hex(cv.eh_pk);
  const nonceC = hex(cv.hello_nonce);

  it('derives the ephemeral public keys from their secrets', () => {
    expect(bytesToHex(nacl.box.keyPair.fromSecretKey(hex(cv.ec_sk)).publicKey)).toBe(cv.ec_pk);
    expect(bytesToHex(nacl.box.keyPair.fromSecretKey(hex(cv.eh_sk)).publicKey)).toBe(cv.eh_pk);
  });

  it('reproduces the hello and welcome transcripts and signatures', () => {
    const tHello = helloTranscript(ids.host_id, ids.device_id, ecPk, nonceC);
    const tWelcome = welcomeTranscript(ids.host_id, ids.device_id, ecPk, ehPk, nonceC);
    expect(bytesToHex(tHello)).toBe(cv.transcript_hello);
    expect(bytesToHex(tWelcome)).toBe(cv.transcript_welcome);
    expect(bytesToHex(nacl.sign.detached(tHello, device.secretKey))).toBe(cv.sig_hello);
    expect(bytesToHex(nacl.sign.detached(tWelcome, host.secretKey))).toBe(cv.sig_welcome);
  });

  it('derives the same shared secret on both sides, and the two keys', () => {
    expect(bytesToHex(sharedSecret(hex(cv.ec_sk), ehPk))).toBe(cv.dh);
    expect(bytesToHex(sharedSecret(hex(cv.eh_sk), ecPk))).toBe(cv.dh);
    const keys = channelKeys(hex(cv.dh), hex(cv.transcript_welcome));
    expect(bytesToHex(keys.c2h)).toBe(cv.k_c2h);
    expect(bytesToHex(keys.h2c)).toBe(cv.k_h2c);
  });

  it('builds the frame nonces', () => {
    expect(bytesToHex(frameNonce(0))).toBe(cv.frame_nonce_0);
    expect(bytesToHex(frameNonce(1))).toBe(cv.frame_nonce_1);
    expect(bytesToHex(frameNonce(258))).toBe(cv.frame_nonce_258);
  });

  it('seals the vector frames: raw secretbox output, the nonce not sent', () => {
    const device = new FrameCipher({ sendKey: hex(cv.k_c2h), receiveKey: hex(cv.k_h2c) });
    const hostSide = new FrameCipher({ sendKey: hex(cv.k_h2c), receiveKey: hex(cv.k_c2h) });
    const c2h = JsonObject.parse(JSON.parse(cv.c2h_message_json));
    const frame0 = device.seal(c2h);
    expect(bytesToHex(frame0)).toBe(cv.c2h_frame_counter_0);
    expect(frame0.length).toBe(cv.c2h_message_json.length + nacl.secretbox.overheadLength);
    expect(bytesToHex(device.seal(c2h))).toBe(cv.c2h_frame_counter_1);
    expect(bytesToHex(hostSide.seal(JsonObject.parse(JSON.parse(cv.h2c_message_json))))).toBe(
      cv.h2c_frame_counter_0,
    );
    expect(hostSide.open(hex(cv.c2h_frame_counter_0))).toEqual(c2h);
    expect(hostSide.open(hex(cv.c2h_frame_counter_1))).toEqual(c2h);
    expect(
      fromUtf8(
        nacl.secretbox.open(hex(cv.h2c_frame_counter_0), hex(cv.frame_nonce_0), hex(cv.k_h2c))!,
      ),
    ).toBe(cv.h2c_message_json);
  });

  it('runs the channel state machines to the vector messages and keys', () => {
    const record = {
      origin: ORIGIN,
      hostId: ids.host_id,
      hostPk: b64u(host.publicKey),
      hostName: 'Mac mini',
      deviceId: ids.device_id,
      deviceSeed: b64u(hex(ids.device_seed)),
    };
    const { hello, channel } = openChannel(record, {
      randomBytes: scriptedRandom(hex(cv.ec_sk), nonceC),
    });
    expect(hello).toEqual({
      t: 'hello',
      v: [1],
      device: ids.device_id,
      eph: b64u(ecPk),
      nonce: b64u(nonceC),
      sig: b64u(hex(cv.sig_hello)),
    });
    const accepted = acceptHello(hello, {
      identity: host,
      lookupDevice: () => ({ devicePk: device.publicKey, revoked: false }),
      connectionId: 'conn_1',
      instanceId: 'inst_1',
      randomBytes: scriptedRandom(hex(cv.eh_sk)),
    });
    if (!accepted.ok) throw accepted.error;
    expect(accepted.welcome).toEqual({
      t: 'welcome',
      v: 1,
      eph: b64u(ehPk),
      sig: b64u(hex(cv.sig_welcome)),
      conn: 'conn_1',
      instance: 'inst_1',
    });
    const welcomed = channel.receiveWelcome(accepted.welcome);
    if (!welcomed.ok) throw welcomed.error;
    const c2h = JsonObject.parse(JSON.parse(cv.c2h_message_json));
    expect(bytesToHex(welcomed.cipher.seal(c2h))).toBe(cv.c2h_frame_counter_0);
    expect(bytesToHex(welcomed.cipher.seal(c2h))).toBe(cv.c2h_frame_counter_1);
    const h2c = JsonObject.parse(JSON.parse(cv.h2c_message_json));
    expect(bytesToHex(accepted.cipher.seal(h2c))).toBe(cv.h2c_frame_counter_0);
  });
});

describe('rejections', () => {
  it('X25519 with the all-zero key gives the all-zero secret in tweetnacl', () => {
    const dh = nacl.scalarMult(hex(cv.ec_sk), hex(rv.zero_x25519_pk));
    expect(bytesToHex(dh)).toBe(rv.zero_pk_shared_secret);
  });

  it('refuses the all-zero public key', () => {
    expect(() => sharedSecret(hex(cv.ec_sk), hex(rv.zero_x25519_pk))).toThrow(
      expect.objectContaining({ code: 'protocol_error', internalReason: 'all-zero ephemeral key' }),
    );
  });

  it('refuses an all-zero shared secret from a low-order point', () => {
    const orderFour = new Uint8Array(32);
    orderFour[0] = 1;
    expect(bytesToHex(nacl.scalarMult(hex(cv.ec_sk), orderFour))).toBe(rv.zero_pk_shared_secret);
    expect(() => sharedSecret(hex(cv.ec_sk), orderFour)).toThrow(
      expect.objectContaining({ code: 'protocol_error', internalReason: 'all-zero shared secret' }),
    );
  });
});

describe('digest vectors', () => {
  it('canonicalises and digests the approval', () => {
    expect(canonicalJson(dv.approval_value)).toBe(dv.approval_jcs);
    expect(digest(dv.approval_value)).toBe(dv.approval_digest);
  });

  it('digests the command value ({op, args} without commandId)', () => {
    expect(digest(dv.command_value)).toBe(dv.command_args_digest);
  });

  it('writes numbers and non-ASCII the JCS way', () => {
    expect(canonicalJson(dv.number_jcs.value)).toBe(dv.number_jcs.jcs);
  });
});
