/**
 * Issue 11, finding 6: handshakes are rate-limited per address (each socket) and per
 * paired device (each hello naming it), and an attempt over a limit is refused with
 * `rate_limited` (4429, saying when to retry) before its signature is checked: a hello
 * with a bad signature gets 4429, not the 4401 a check would give. A legitimate device
 * still connects meanwhile, and the limited one once its bucket refills.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64u } from '../../protocol/index.js';
import { createIdentity, openChannel, type PairedHost } from '../../pairing/index.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import { sendAndWait, startLimitedHost, type LimitedHost } from './limited-host.js';

const PER_ADDRESS = 5;
const PER_DEVICE = 8;

// One host whose address limit is tight, one whose device limit is (its loopback tests
// would otherwise spend the address's tokens).
let byAddress: LimitedHost;
let byDevice: LimitedHost;
let victim: PairedHost;
let bystander: PairedHost;

beforeAll(async () => {
  byAddress = await startLimitedHost({
    channelLimits: { handshakesPerAddress: { burst: PER_ADDRESS, perMinute: 6 } },
  });
  byDevice = await startLimitedHost({
    // A token back every 200 ms, so the test can see the device get in again.
    channelLimits: { hellosPerDevice: { burst: PER_DEVICE, perMinute: 60 } },
  });
  victim = (await pairDevice(await byDevice.pairLink())).host;
  bystander = (await pairDevice(await byDevice.pairLink())).host;
});

afterAll(async () => Promise.all([byAddress.dispose(), byDevice.dispose()]));

/** A hello naming `record`'s device, signed by another key. */
function badlySigned(record: PairedHost) {
  const other = createIdentity();
  return openChannel({ ...record, deviceSeed: b64u(other.secretKey.slice(0, 32)) }).hello;
}

describe('issue 11: over-limit handshakes are refused cheaply, and others still connect', () => {
  it('per address: past the burst, 4429 with when to retry, before the hello is read', async () => {
    const device = (await pairDevice(await byAddress.pairLink())).host;
    const endings = [];
    for (let i = 0; i < PER_ADDRESS + 4; i++) {
      endings.push(await sendAndWait(byAddress.wsUrl, badlySigned(device), '203.0.113.5'));
    }
    expect(endings.map((ending) => ending.code)).toEqual([
      ...Array<number>(PER_ADDRESS).fill(4401),
      ...Array<number>(4).fill(4429),
    ]);
    for (const ending of endings.slice(PER_ADDRESS)) {
      expect(ending.first).toMatchObject({ t: 'error', code: 'rate_limited' });
      expect((ending.first as { message: string }).message).toMatch(
        /^too many handshakes from this address: retry in \d+ s$/,
      );
    }
    // Another address, and the same device, are not held back by that address.
    const channel = await RawChannel.open(device);
    expect(await channel.call('host.info')).toMatchObject({ hostId: device.hostId });
    channel.socket.socket.close();
  });

  it('per device: bad signatures from many addresses are refused without a check once its bucket is empty', async () => {
    const endings = await Promise.all(
      Array.from({ length: PER_DEVICE + 12 }, (_, i) =>
        sendAndWait(byDevice.wsUrl, badlySigned(victim), `203.0.113.${100 + i}`),
      ),
    );
    const codes = endings.map((ending) => ending.code);
    // The burst, and a token a second back while they ran (a few on a loaded machine).
    expect(codes.filter((code) => code === 4401).length).toBeLessThanOrEqual(PER_DEVICE + 4);
    const limited = endings.filter((ending) => ending.code === 4429);
    expect(limited.length).toBeGreaterThanOrEqual(6);
    for (const ending of limited) {
      expect(ending.first).toMatchObject({ t: 'error', code: 'rate_limited' });
      expect((ending.first as { message: string }).message).toMatch(
        /^too many handshakes for this device: retry in \d+ s$/,
      );
    }
    // Another device connects at once; the limited one as soon as a token is back.
    const other = await RawChannel.open(bystander);
    expect(await other.call('host.info')).toMatchObject({ hostId: bystander.hostId });
    other.socket.socket.close();
    await expect
      .poll(
        async () => {
          try {
            const channel = await RawChannel.open(victim);
            channel.socket.socket.close();
            return true;
          } catch {
            return false;
          }
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
  });
});
