/**
 * The host reads a hello through a check by hand before zod (issue 26): whatever zod's
 * HelloMessage refuses is still refused as a malformed hello (4400) or an unsupported
 * version (4426), never taken on to the device lookup; whatever zod takes goes on as before.
 * And the welcome the host builds is not parsed again, but its ids are still checked.
 */
import { describe, expect, it } from 'vitest';
import { acceptHello, openChannel } from '../../pairing/index.js';
import type { HelloOptions } from '../../pairing/testing.js';
import { HelloMessage, TetherError } from '../../protocol/index.js';
import { pairInMemory } from './fixtures.js';

function setup() {
  const { host, device, deviceSide } = pairInMemory();
  const record = deviceSide.host;
  const looked: string[] = [];
  const hostOptions: HelloOptions = {
    identity: host,
    lookupDevice: (deviceId) => {
      looked.push(deviceId);
      return deviceId === record.deviceId
        ? { devicePk: device.publicKey, revoked: false }
        : undefined;
    },
    connectionId: 'conn_1',
    instanceId: 'inst_1',
  };
  return { record, hostOptions, looked };
}

const WRONG_VALUES: unknown[] = [
  undefined,
  null,
  1,
  1.5,
  '',
  'x'.repeat(200),
  'AAAAAAAAAAAAAAAAAAAAAB', // 16 bytes, but a non-zero trailing bit
  'AAAAAAAAAAAAAAAAAAAAAA==',
  [],
  {},
  true,
];
const WRONG_VERSIONS: unknown[] = [
  [],
  [1.5],
  [1, 1.5],
  [1, 2 ** 53],
  ['1'],
  [1, null],
  Array.from({ length: 17 }, () => 1),
  Array.from({ length: 16 }, () => 1),
  [2, 1],
  1,
];

describe('a hello the host reads', () => {
  const { record, hostOptions, looked } = setup();
  const { hello } = openChannel(record);
  const mutants: unknown[] = [hello, { ...hello, extra: 'a field zod drops' }];
  for (const field of ['t', 'device', 'eph', 'nonce', 'sig'] as const) {
    for (const value of WRONG_VALUES) mutants.push({ ...hello, [field]: value });
  }
  for (const v of WRONG_VERSIONS) mutants.push({ ...hello, v });
  mutants.push(null, [], 'hello', { ...hello, t: 'pair' });

  it.each(mutants.map((mutant) => [JSON.stringify(mutant)?.slice(0, 80), mutant]))(
    'is refused as malformed exactly when zod refuses it: %s',
    (_label, mutant) => {
      looked.length = 0;
      const result = acceptHello(JSON.parse(JSON.stringify(mutant ?? null)), hostOptions);
      if (HelloMessage.safeParse(mutant).success) {
        // Taken: it reached the device lookup (then the signature, which a change breaks).
        expect(looked).toHaveLength(1);
        if (!result.ok) expect(result.error.code).not.toBe('protocol_error');
      } else {
        expect(result.ok).toBe(false);
        if (!result.ok)
          expect(['protocol_error', 'unsupported_version']).toContain(result.error.code);
        expect(looked).toHaveLength(0);
      }
    },
  );

  it('names the field zod found wrong', () => {
    const result = acceptHello({ ...hello, eph: 'AAAA' }, hostOptions);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('eph: expected base64url of 32 bytes');
  });
});

describe('the welcome the host builds', () => {
  it('carries the connection and instance ids as given', () => {
    const { record, hostOptions } = setup();
    const result = acceptHello(openChannel(record).hello, hostOptions);
    expect(result.ok && result.welcome).toMatchObject({
      t: 'welcome',
      conn: 'conn_1',
      instance: 'inst_1',
    });
  });

  it.each([
    ['connectionId', ''],
    ['connectionId', 'c'.repeat(129)],
    ['instanceId', ''],
  ])('throws invalid_request for a %s that does not fit the protocol (%j)', (field, id) => {
    const { record, hostOptions } = setup();
    const call = () => acceptHello(openChannel(record).hello, { ...hostOptions, [field]: id });
    expect(call).toThrow(TetherError);
    expect(call).toThrow(/invalid welcome/);
  });
});
