/**
 * What a device keeps per paired host (docs/protocol.md §3, end), stored as JSON and
 * validated on read.
 */
import { z } from 'zod/mini';
import { b64uBytes, fromB64u, parseWith, PeerId } from '../protocol/index.js';
import { identityFromSeed, peerIdOf } from './identity.js';
import { isOrigin } from './pair-link.js';

/**
 * The device id each seed gives, as derived before: every connect reads the records back,
 * and deriving an Ed25519 key in pure JS costs ~4 ms (~20 on a phone). A handful of seeds
 * at most (one per paired host); a pure function of the seed, so an entry cannot go stale.
 */
const deviceIdOfSeed = new Map<string, string>();
const REMEMBERED_SEEDS = 16;

function seedGivesDeviceId(seed: string, deviceId: string): boolean {
  let derived = deviceIdOfSeed.get(seed);
  if (derived === undefined) {
    derived = identityFromSeed(fromB64u(seed)).id;
    if (deviceIdOfSeed.size >= REMEMBERED_SEEDS) deviceIdOfSeed.clear();
    deviceIdOfSeed.set(seed, derived);
  }
  return derived === deviceId;
}

/**
 * `{origin, hostId, hostPk, hostName, deviceId, deviceSk}` of docs/protocol.md §3, with the device
 * secret stored as its 32-byte Ed25519 seed (`deviceSeed`). Both ids must match their keys.
 */
export const PairedHost = z
  .object({
    origin: z.string().check(z.refine(isOrigin, 'expected an http(s) origin')),
    hostId: PeerId,
    hostPk: b64uBytes(32),
    hostName: z.string().check(z.minLength(1), z.maxLength(64)),
    deviceId: PeerId,
    deviceSeed: b64uBytes(32),
  })
  .check(
    z.refine((record) => peerIdOf(fromB64u(record.hostPk)) === record.hostId, {
      message: 'hostId does not match hostPk',
      path: ['hostId'],
    }),
    z.refine((record) => seedGivesDeviceId(record.deviceSeed, record.deviceId), {
      message: 'deviceId does not match deviceSeed',
      path: ['deviceId'],
    }),
  );
export type PairedHost = z.infer<typeof PairedHost>;

/** Reads a stored record back; throws `invalid_request` listing what is wrong with it. */
export function parsePairedHost(value: unknown): PairedHost {
  return parseWith(PairedHost, value, 'paired host record');
}
