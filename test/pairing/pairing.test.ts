import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { b64u, CloseCode, fromB64u, PAIR_REFUSALS } from '../../protocol/index.js';
import {
  acceptPair,
  createIdentity,
  handshakeErrorFrame,
  type PairLink,
  startPairing,
} from '../../pairing/index.js';
import { parsePairedHost } from '../../pairing/testing.js';
import {
  type HostPairingOptions,
  Label,
  type PairingFailure,
  pairTranscript,
} from '../../pairing/testing.js';
import { failureOf, NOW, ORIGIN, pairInMemory, pairingSetup, scriptedRandom } from './fixtures.js';

function pairFrom(link: PairLink, identity = createIdentity()) {
  return startPairing({ link, identity, name: 'Test iPhone', platform: 'ios' });
}

/**
 * A pairing failure as the peer reads it: "pairing failed", or for a link that cannot pair
 * (used, expired, void, unknown) the refusal saying which; only the log says more.
 */
function pairFailure(
  result: { ok: true } | PairingFailure,
  message: string = 'pairing failed',
): PairingFailure {
  const failure = failureOf(result);
  expect(failure.error).toMatchObject({ code: 'pair_failed', message });
  expect(failure.error.closeCode).toBe(CloseCode.pairingFailed);
  return failure;
}

describe('pairing', () => {
  it('pairs a device with a host: both keep a record and show the same SAS', () => {
    const { host, device, offer, hostSide, deviceSide } = pairInMemory();
    expect(hostSide.offerId).toBe(offer.offerId);
    expect(hostSide.device).toEqual({
      deviceId: device.id,
      devicePk: device.publicKey,
      name: 'Test iPhone',
      platform: 'ios',
    });
    expect(hostSide.paired).toEqual({
      t: 'paired',
      hostId: host.id,
      deviceId: device.id,
      sas: hostSide.sas,
    });
    expect(deviceSide.sas).toMatch(/^\d{6}$/);
    expect(deviceSide.sas).toBe(hostSide.sas);
    const stored: unknown = JSON.parse(JSON.stringify(deviceSide.host));
    expect(parsePairedHost(stored)).toEqual({
      origin: ORIGIN,
      hostId: host.id,
      hostPk: b64u(host.publicKey),
      hostName: 'Mac mini',
      deviceId: device.id,
      deviceSeed: b64u(device.secretKey.subarray(0, 32)),
    });
  });

  it('rejects a tampered pair box and counts the attempt', () => {
    const { offer, link, hostOptions } = pairingSetup();
    const { pair } = pairFrom(link);
    const at = 40; // inside the ciphertext: the nonce takes the first 32 characters
    const box = pair.box.slice(0, at) + (pair.box[at] === 'A' ? 'B' : 'A') + pair.box.slice(at + 1);
    const failure = pairFailure(acceptPair({ ...pair, box }, hostOptions));
    expect(failure.countAttemptOn).toBe(offer.offerId);
    expect(failure.error.internalReason).toBe('pair box did not open to a valid payload');
  });

  it('rejects a box sealed with the wrong psk and counts the attempt', () => {
    const { offer, link, hostOptions } = pairingSetup();
    const { pair } = pairFrom({ ...link, psk: nacl.randomBytes(32) });
    const failure = pairFailure(acceptPair(pair, hostOptions));
    expect(failure.countAttemptOn).toBe(offer.offerId);
    expect(failure.error.internalReason).toBe('pair box did not open to a valid payload');
  });

  it('rejects an expired offer without counting an attempt', () => {
    const { offer, link, hostOptions } = pairingSetup();
    const failure = pairFailure(
      acceptPair(pairFrom(link).pair, { ...hostOptions, now: offer.expiresAt }),
      PAIR_REFUSALS.expired,
    );
    expect(failure.error.internalReason).toBe('offer expired');
    expect(failure.countAttemptOn).toBeUndefined();
  });

  it('rejects a used offer', () => {
    const { offer, link, hostOptions } = pairingSetup();
    offer.used = true;
    const failure = pairFailure(acceptPair(pairFrom(link).pair, hostOptions), PAIR_REFUSALS.used);
    expect(failure.error.internalReason).toBe('offer already used');
  });

  it('rejects an unknown offer', () => {
    const { link, hostOptions } = pairingSetup();
    const options = { ...hostOptions, lookupOffer: () => undefined };
    const failure = pairFailure(acceptPair(pairFrom(link).pair, options), PAIR_REFUSALS.unknown);
    expect(failure.error.internalReason).toBe('unknown offer');
  });

  it('voids an offer after 3 failed attempts: then even the right box fails', () => {
    const { offer, link, hostOptions } = pairingSetup();
    for (let attempt = 0; attempt < 3; attempt++) {
      const wrongPsk = pairFrom({ ...link, psk: nacl.randomBytes(32) }).pair;
      const failure = pairFailure(acceptPair(wrongPsk, hostOptions));
      expect(failure.countAttemptOn).toBe(offer.offerId);
      offer.failedAttempts++;
    }
    const failure = pairFailure(acceptPair(pairFrom(link).pair, hostOptions), PAIR_REFUSALS.void);
    expect(failure.error.internalReason).toBe('offer void after failures');
  });

  it('makes the device refuse a challenge signed by another host key', () => {
    const { link, hostOptions } = pairingSetup();
    const { pair, pairing } = pairFrom(link);
    const impostor: HostPairingOptions = { ...hostOptions, identity: createIdentity() };
    const accepted = acceptPair(pair, impostor);
    if (!accepted.ok) throw accepted.error;
    expect(failureOf(pairing.receiveChallenge(accepted.challenge)).error).toMatchObject({
      code: 'pair_failed',
      message: 'this is not the host you scanned',
    });
  });

  it('makes the host refuse a confirmation signed by another device key', () => {
    const { host, device, offer, link, hostOptions } = pairingSetup();
    const nonceC = nacl.randomBytes(16);
    const nonceH = nacl.randomBytes(16);
    const { pair } = startPairing({
      link,
      identity: device,
      name: 'Test iPhone',
      platform: 'ios',
      randomBytes: scriptedRandom(nonceC, nacl.randomBytes(24)),
    });
    const randomBytes = scriptedRandom(nonceH, nacl.randomBytes(24));
    const accepted = acceptPair(pair, { ...hostOptions, randomBytes });
    if (!accepted.ok) throw accepted.error;
    const binding = {
      offerId: fromB64u(offer.offerId),
      hostPk: host.publicKey,
      devicePk: device.publicKey,
      nonceC,
      nonceH,
    };
    const forged = nacl.sign.detached(
      pairTranscript(Label.pairDevice, binding),
      createIdentity().secretKey,
    );
    const failure = pairFailure(accepted.pairing.confirm({ t: 'pair_confirm', sig: b64u(forged) }));
    expect(failure.error.internalReason).toBe('device signature did not verify');
    expect(failure.countAttemptOn).toBe(offer.offerId);
  });

  it('makes the device refuse a paired message with another SAS', () => {
    const { link, hostOptions } = pairingSetup();
    const { pair, pairing } = pairFrom(link);
    const accepted = acceptPair(pair, hostOptions);
    if (!accepted.ok) throw accepted.error;
    const challenged = pairing.receiveChallenge(accepted.challenge);
    if (!challenged.ok) throw challenged.error;
    const confirmed = accepted.pairing.confirm(challenged.confirm);
    if (!confirmed.ok) throw confirmed.error;
    const sas = confirmed.sas === '000000' ? '000001' : '000000';
    const failure = pairFailure(pairing.receivePaired({ ...confirmed.paired, sas }));
    expect(failure.error.internalReason).toBe('host computed another SAS');
  });

  it('answers pair version 2 with unsupported_version (4426), counting nothing', () => {
    const { link, hostOptions } = pairingSetup();
    const failure = failureOf(acceptPair({ ...pairFrom(link).pair, v: 2 }, hostOptions));
    expect(failure.error.code).toBe('unsupported_version');
    expect(failure.error.closeCode).toBe(CloseCode.unsupportedVersion);
    expect(failure.countAttemptOn).toBeUndefined();
  });

  it('answers a malformed pair frame with protocol_error naming the fields', () => {
    const { hostOptions } = pairingSetup();
    const { error } = failureOf(
      acceptPair('{"t":"pair","v":1,"offer":"short","box":"AAAA"}', hostOptions),
    );
    expect(error.code).toBe('protocol_error');
    expect(error.closeCode).toBe(CloseCode.protocolError);
    expect(error.message).toMatch(/offer: expected base64url of 16 bytes/);
    expect(error.message).toMatch(/box: /);
    expect(failureOf(acceptPair('{"t":"pair",', hostOptions)).error.message).toBe(
      'text frame is not JSON',
    );
  });

  it('refuses frames out of order on both sides', () => {
    const { link, hostOptions } = pairingSetup();
    const { pair, pairing } = pairFrom(link);
    const early = pairing.receivePaired({ t: 'paired', hostId: 'x', deviceId: 'y', sas: '1' });
    expect(failureOf(early).error.message).toBe('unexpected paired');
    const accepted = acceptPair(pair, hostOptions);
    if (!accepted.ok) throw accepted.error;
    // The device gave up: a late challenge is refused too.
    const late = pairing.receiveChallenge(accepted.challenge);
    expect(failureOf(late).error.message).toBe('unexpected pair_challenge');

    const { pair: again, pairing: device } = pairFrom(link);
    const host = acceptPair(again, hostOptions);
    if (!host.ok) throw host.error;
    const challenged = device.receiveChallenge(host.challenge);
    if (!challenged.ok) throw challenged.error;
    expect(host.pairing.confirm(challenged.confirm).ok).toBe(true);
    const twice = host.pairing.confirm(challenged.confirm);
    expect(failureOf(twice).error.message).toBe('unexpected pair_confirm');
  });

  it("reports the host's error frame on the device", () => {
    const { link, hostOptions } = pairingSetup();
    const { pair, pairing } = pairFrom(link);
    const failed = acceptPair(pair, { ...hostOptions, now: NOW + 10 * 60_000 });
    if (failed.ok) throw new Error('expected the expired offer to fail');
    const frame = JSON.stringify(handshakeErrorFrame(failed.error));
    expect(frame).toBe(
      '{"t":"error","code":"pair_failed","message":"pairing failed: this link expired"}',
    );
    expect(pairing.receiveChallenge(frame)).toMatchObject({
      ok: false,
      error: { code: 'pair_failed', message: PAIR_REFUSALS.expired },
    });
  });

  it('refuses a name longer than 64 characters before sending anything', () => {
    const { link, device } = pairingSetup();
    expect(() =>
      startPairing({ link, identity: device, name: 'x'.repeat(65), platform: 'ios' }),
    ).toThrow(/name: /);
  });
});
