/**
 * Bad input from the network changes nothing: 10,000 random and mutated frames before and
 * after the handshake leave the host up, serving, and its memory flat.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import nacl from 'tweetnacl';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChannel, type PairedHost } from '../../pairing/index.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import { startLimitedHost, type LimitedHost } from './limited-host.js';

let harness: LimitedHost;
let device: PairedHost;

beforeAll(async () => {
  // Every frame must reach the parser, so the handshake rate limits (tested on their own
  // in handshake-rate) are out of the way here: 10,000 frames in seconds.
  const plenty = { burst: 100_000, perMinute: 100_000 };
  harness = await startLimitedHost({
    channelLimits: { handshakesPerAddress: plenty, hellosPerDevice: plenty },
  });
  device = (await pairDevice(await harness.pairLink())).host;
});

afterAll(async () => harness.dispose());

/** Heap in use after a full garbage collection. */
function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

function mutate(text: string, next: () => number): string {
  const chars = [...text];
  const edits = 1 + Math.floor(next() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * chars.length);
    const kind = next();
    if (kind < 0.4) chars[at] = String.fromCharCode(Math.floor(next() * 128));
    else if (kind < 0.7) chars.splice(at, 1);
    else chars.splice(at, 0, '"{}[]:,0\\'[Math.floor(next() * 10)]!);
  }
  return chars.join('');
}

/** A random JSON value: what a confused or hostile client might put in `args`. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = next();
  if (depth > 2 || pick < 0.2) return Math.floor(next() * 2 ** 40) - 2 ** 39;
  if (pick < 0.4) return 'x'.repeat(Math.floor(next() * 80));
  if (pick < 0.5) return null;
  if (pick < 0.7)
    return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const keys = [
    'commandId',
    'runId',
    'input',
    'text',
    'limit',
    'offset',
    'afterSeq',
    'scope',
    'sub',
    'deviceId',
  ];
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 5) }, () => [
      keys[Math.floor(next() * keys.length)]!,
      randomValue(next, depth + 1),
    ]),
  );
}

/** Sends one frame on a fresh socket and waits for the host to close it (or not). */
function sendOnce(url: string, frame: string | Uint8Array, address: string): Promise<void> {
  return new Promise((resolve) => {
    // A forwarded address per socket, as behind a local proxy, so 16 may be in flight.
    const socket = new WebSocket(url, { headers: { 'x-forwarded-for': address } });
    const done = () => {
      socket.terminate();
      resolve();
    };
    socket.on('open', () => socket.send(frame));
    socket.on('close', done);
    socket.on('error', done);
    // A frame the host takes as a hello is welcomed and held until its first-frame bound
    // (tested in replayed-hello): it has been read by then, and this one is let go.
    setTimeout(done, 500);
  });
}

describe('random and mutated frames', () => {
  it('leave the host up, answering, and its memory flat', { timeout: 120_000 }, async () => {
    const next = random(20261130);
    const url = harness.host.url.replace('http', 'ws') + '/v1/ws';
    const { hello } = openChannel(device);
    const samples = [
      JSON.stringify(hello),
      JSON.stringify({ t: 'pair', v: 1, offer: 'x', box: 'y' }),
    ];
    const heapBefore = liveHeap();
    let frames = 0;

    // Before the handshake: random bytes and mutated hello/pair frames, 16 sockets at a time.
    for (let batch = 0; batch < 125; batch++) {
      const sends: Promise<void>[] = [];
      for (let i = 0; i < 16; i++) {
        const pick = next();
        const frame =
          pick < 0.3
            ? nacl.randomBytes(Math.floor(next() * 512))
            : mutate(samples[Math.floor(next() * samples.length)]!, next);
        sends.push(sendOnce(url, frame, `198.51.100.${i}`));
        frames++;
      }
      await Promise.all(sends);
    }
    // After the handshake: sealed garbage requests keep the channel open; each must be answered.
    const channel = await RawChannel.open(device);
    const ops = [
      'run.submit',
      'run.get',
      'subscribe',
      'output.read',
      'nope',
      'device.revoke',
      'runs.list',
    ];
    for (let i = 0; i < 7800; i++) {
      const args = randomValue(next, 1);
      const plain = typeof args === 'object' && args !== null && !Array.isArray(args);
      const answer = await channel.request(ops[i % ops.length]!, plain ? args : {});
      expect(answer.t).toBe('res');
      frames++;
    }
    // Tampered sealed frames close their channel with 4400; four channels at a time, within
    // the device's channel cap beside the one above.
    for (let batch = 0; batch < 50; batch++) {
      const tampered = Array.from({ length: 4 }, async () => {
        const victim = await RawChannel.open(device);
        const sealed = victim.cipher.seal({ t: 'ping' });
        sealed[Math.floor(next() * sealed.length)]! ^= 1 + Math.floor(next() * 255);
        victim.socket.socket.send(sealed);
        return (await victim.socket.closed).code;
      });
      expect(await Promise.all(tampered)).toEqual([4400, 4400, 4400, 4400]);
      frames += 4;
    }
    expect(frames).toBeGreaterThanOrEqual(10_000);

    expect(await channel.call('host.info')).toMatchObject({ hostId: device.hostId });
    const fresh = await RawChannel.open(device);
    expect(await fresh.call('runs.list', {})).toMatchObject({ runs: [] });
    fresh.socket.socket.close();
    channel.socket.socket.close();
    await Promise.all([fresh.socket.closed, channel.socket.closed]);
    // What stays reachable after a full collection: a leak per frame or per socket would
    // leave megabytes here (10,000 frames), where garbage collected RSS cannot tell.
    expect(liveHeap() - heapBefore).toBeLessThan(8 * 1024 * 1024);
  });
});
