/**
 * A remote that stops reading gets `lagged`, host memory stays bounded, and the others'
 * events keep flowing, in order.
 */
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, HostMessage } from '../../protocol/index.js';
import type { PairedHost } from '../../pairing/index.js';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';

let harness: InProcessHost;
let device: PairedHost;

beforeAll(async () => {
  harness = await startInProcessHost();
  device = (await pairDevice(await harness.pairLink())).host;
});

afterAll(async () => harness.dispose());

const EVENTS = 100_000;
/**
 * The host holds at most DURABLE_LIMIT (8 MiB) plus one frame for a stalled remote; this
 * process also holds the reading client's window. Measured here: 5-9 MiB on Node 20 and 24.
 */
const LIVE_BOUND = 32 * 1024 * 1024;
/** How many events the reading remote may be behind the writer. */
const READER_WINDOW = 5_000;

/**
 * Heap and buffers in use after a full garbage collection: what is held, not the garbage
 * V8 lets pile up first (Node 24's heap grows to ~150 MiB of it during this test).
 */
function liveMemory(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

describe('a remote that stops reading', () => {
  it('gets lagged while 100,000 events flow; the memory held stays bounded; a reading remote sees all, in order', async () => {
    const store = harness.host.store;
    const slow = await RawChannel.open(device);
    const fast = await RawChannel.open(device);
    const slowSub = String((await slow.call('subscribe', {}))['sub']);
    const fastSub = await fast.call('subscribe', {});
    const start = Number(fastSub['cursor']);
    (slow.socket.socket as unknown as { _socket: Socket })._socket.pause();

    const received: number[] = [];
    const reader = (async () => {
      while (received.length < EVENTS) {
        const message = await fast.receive(20_000);
        if (message === undefined) break;
        if (message.t === 'events')
          received.push(...(message.events as Event[]).map((event) => event.seq));
      }
    })();

    const before = liveMemory();
    for (let written = 0; written < EVENTS; written += 1000) {
      // The reading remote (in this process) stays within a few commits of the writer, so
      // what is measured is the host holding events for the stalled one, not this reader's
      // backlog of frames it has not parsed yet.
      while (received.length < written - READER_WINDOW) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      store.write((tx) => {
        for (let i = 0; i < 1000; i++)
          tx.append({ type: 'run.started', sessionId: null, runId: null, payload: {} });
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The stalled remote still reads nothing: what the host holds for it is held now.
    const held = liveMemory() - before;
    await reader;
    expect(received).toHaveLength(EVENTS);
    expect(received[0]).toBe(start + 1);
    expect(received.every((seq, i) => i === 0 || seq === received[i - 1]! + 1)).toBe(true);
    expect(held).toBeLessThan(LIVE_BOUND);

    (slow.socket.socket as unknown as { _socket: Socket })._socket.resume();
    const seen: HostMessage[] = [];
    for (;;) {
      const message = await slow.receive(10_000);
      if (message === undefined) break;
      seen.push(message);
      if (message.t === 'lagged') break;
    }
    const lagged = seen.at(-1);
    expect(lagged).toMatchObject({ t: 'lagged', sub: slowSub });
    const delivered = seen.flatMap((m) => (m.t === 'events' ? (m.events as Event[]) : []));
    const cursor = (lagged as { cursor: number }).cursor;
    expect(delivered.at(-1)?.seq ?? start).toBe(cursor);
    expect(delivered.length).toBeLessThan(EVENTS);
    // The lagged remote resubscribes from its own cursor and catches up.
    const again = await slow.call('subscribe', { afterSeq: cursor });
    expect(again['mode']).toBe(store.events.head() - cursor <= 10_000 ? 'replay' : 'snapshot');
    expect(await slow.call('host.info')).toMatchObject({ hostId: device.hostId });
  });
});
