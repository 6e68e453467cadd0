/**
 * Issue 11, finding 6: a captured hello replayed on new sockets is welcomed, but the
 * channel it gets is closed with 4408 once the first-frame bound passes without a frame
 * that decrypts, the device's last seen does not move, and replays cannot hold more than
 * the device's channel cap nor push out a channel the device really uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChannel, type PairedHost } from '../../pairing/index.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import { sendAndWait, startLimitedHost, type LimitedHost } from './limited-host.js';

// Long enough that, on a loaded machine, each replay's successor arrives well inside it.
const FIRST_FRAME_MS = 2_000;
const CHANNELS_PER_DEVICE = 4;

let harness: LimitedHost;
let device: PairedHost;

beforeAll(async () => {
  harness = await startLimitedHost({
    channelLimits: {
      firstFrameTimeoutMs: FIRST_FRAME_MS,
      channelsPerDevice: CHANNELS_PER_DEVICE,
      hellosPerDevice: { burst: 100, perMinute: 600 },
    },
  });
  device = (await pairDevice(await harness.pairLink())).host;
});

afterAll(async () => harness.dispose());

function lastSeenAt(): number | null {
  return harness.host.runtime.devices.find(device.deviceId)!.lastSeenAt;
}

describe('issue 11: a replayed hello cannot keep a channel or touch last seen', () => {
  it('is welcomed, then closed with 4408 after the first-frame bound; last seen is unchanged', async () => {
    const { hello } = openChannel(device);
    // The device's own channel: its first request makes it seen.
    const real = await RawChannel.open(device);
    await real.call('host.info');
    const seen = lastSeenAt();
    expect(seen).not.toBeNull();

    const replays = await Promise.all(
      Array.from({ length: 3 }, () => sendAndWait(harness.wsUrl, hello)),
    );
    for (const replay of replays) {
      expect(replay.first).toMatchObject({ t: 'welcome' });
      expect(replay.code).toBe(4408);
      expect(replay.closedAfterMs).toBeGreaterThanOrEqual(FIRST_FRAME_MS - 20);
      expect(replay.closedAfterMs).toBeLessThan(FIRST_FRAME_MS + 5_000);
    }
    expect(lastSeenAt()).toBe(seen);
    // The device's channel was never in the replays' way.
    expect(await real.call('host.info')).toMatchObject({ hostId: device.hostId });
    real.socket.socket.close();
    await real.socket.closed;
  });

  it('replays beyond the channel cap push out only each other, never a channel in use', async () => {
    const { hello } = openChannel(device);
    const used = await Promise.all(
      Array.from({ length: CHANNELS_PER_DEVICE - 1 }, () => RawChannel.open(device)),
    );
    for (const channel of used) await channel.call('host.info');
    const seen = lastSeenAt();
    // One place is left: each replay takes it from the one before.
    const replays = await Promise.all(
      Array.from({ length: 6 }, () => sendAndWait(harness.wsUrl, hello)),
    );
    expect(replays.map((replay) => replay.code)).toEqual(Array(6).fill(4408));
    // Five were pushed out by the next replay, long before their bound.
    const early = replays.filter((replay) => replay.closedAfterMs < FIRST_FRAME_MS / 2);
    expect(early).toHaveLength(5);
    for (const channel of used) {
      expect(await channel.call('host.info')).toMatchObject({ hostId: device.hostId });
    }
    expect(lastSeenAt()).toBe(seen);
    // With every place used by channels that sent frames, one more is refused with 4429.
    const last = await RawChannel.open(device);
    await last.call('host.info');
    const refused = await sendAndWait(harness.wsUrl, hello);
    expect(refused.first).toMatchObject({ t: 'error', code: 'rate_limited' });
    expect(String((refused.first as { message: string }).message)).toMatch(/retry in \d+ s/);
    expect(refused.code).toBe(4429);
    for (const channel of [...used, last]) channel.socket.socket.close();
  });
});
