import { describe, expect, it } from 'vitest';
import { b64u } from '../../protocol/index.js';
import {
  createIdentity,
  deserializeIdentity,
  formatPairLink,
  parsePairLink,
  serializeIdentity,
} from '../../pairing/index.js';
import { parsePairedHost } from '../../pairing/testing.js';
import { peerIdOf, rawPeerId } from '../../pairing/testing.js';
import { ORIGIN, pairInMemory } from './fixtures.js';

describe('identity', () => {
  it('round-trips through its JSON form and signs the same afterwards', () => {
    const identity = createIdentity();
    const stored: unknown = JSON.parse(JSON.stringify(serializeIdentity(identity)));
    expect(deserializeIdentity(stored)).toEqual(identity);
    expect(identity.id).toHaveLength(22);
    expect(b64u(rawPeerId(identity.id))).toBe(identity.id);
    expect(peerIdOf(identity.publicKey)).toBe(identity.id);
  });

  it('refuses a stored identity whose public key is not its seed', () => {
    const stored = {
      ...serializeIdentity(createIdentity()),
      publicKey: b64u(createIdentity().publicKey),
    };
    expect(() => deserializeIdentity(stored)).toThrow(/publicKey does not match seed/);
    expect(() => deserializeIdentity({ publicKey: 'x', seed: 'y' })).toThrow(
      /publicKey: .*32 bytes/,
    );
  });

  it('refuses a paired-host record whose ids do not match its keys', () => {
    const { deviceSide } = pairInMemory();
    const record = deviceSide.host;
    expect(parsePairedHost(record)).toEqual(record);
    const otherDevice = createIdentity();
    expect(() => parsePairedHost({ ...record, deviceId: otherDevice.id })).toThrow(
      /deviceId: deviceId does not match deviceSeed/,
    );
    expect(() => parsePairedHost({ ...record, hostPk: b64u(otherDevice.publicKey) })).toThrow(
      /hostId: hostId does not match hostPk/,
    );
  });
});

describe('pair link', () => {
  const link = {
    origin: 'https://mac-mini.local:8443',
    offerId: b64u(new Uint8Array(16).fill(1)),
    psk: new Uint8Array(32).fill(2),
    hostPk: new Uint8Array(32).fill(3),
  };

  it('formats and parses a link', () => {
    const text = formatPairLink(link);
    expect(text).toMatch(/^https:\/\/mac-mini\.local:8443\/#pair=[A-Za-z0-9_-]{107}$/);
    expect(parsePairLink(text)).toEqual(link);
    expect(parsePairLink(formatPairLink({ ...link, origin: ORIGIN })).origin).toBe(ORIGIN);
  });

  it('refuses malformed links', () => {
    const fragment = formatPairLink(link).split('#')[1]!;
    for (const [text, why] of [
      ['not a link', /not a URL/],
      [`ftp://host/#${fragment}`, /not http/],
      [`https://user:pw@host/#${fragment}`, /credentials/],
      [`https://host/app/#${fragment}`, /path or query/],
      [`https://host/?x=1#${fragment}`, /path or query/],
      ['https://host/#other=1', /no pair fragment/],
      [`https://host/#${fragment}A`, /base64url|bytes/],
      [`https://host/#${fragment.slice(0, -4)}`, /holds 77 bytes/],
      [`https://host/#${fragment.slice(0, -1)}*`, /not base64url/],
    ] as const) {
      expect(() => parsePairLink(text), text).toThrow(why);
    }
  });

  it('refuses to format a link for something that is not an origin', () => {
    expect(() => formatPairLink({ ...link, origin: 'https://host/' })).toThrow(/not an http/);
  });
});
