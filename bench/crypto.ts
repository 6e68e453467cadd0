/**
 * Frame crypto throughput: seal + open of one JSON message through a real channel, next to
 * plain JSON.stringify + JSON.parse of the same message. Prints the median of several rounds.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/crypto.js
 */
import { acceptHello, createIdentity, type FrameCipher, openChannel } from '../pairing/index.js';
import { peerIdOf } from '../pairing/testing.js';
import { b64u, MAX_FRAME_BYTES } from '../protocol/index.js';

const ROUNDS = 7;
const ROUND_MS = 300;
const TAG_BYTES = 16;

/** A `res` message whose JSON is exactly `bytes` long (ASCII, so characters = bytes). */
function messageOf(bytes: number): object {
  const empty = JSON.stringify({ t: 'res', id: '1', ok: true, result: { text: '' } }).length;
  return { t: 'res', id: '1', ok: true, result: { text: 'x'.repeat(bytes - empty) } };
}

/** A channel opened through the real handshake, host → device. */
function openBenchChannel(): { send: FrameCipher; receive: FrameCipher } {
  const host = createIdentity();
  const device = createIdentity();
  const record = {
    origin: 'http://localhost:8787',
    hostId: host.id,
    hostPk: b64u(host.publicKey),
    hostName: 'bench',
    deviceId: peerIdOf(device.publicKey),
    deviceSeed: b64u(device.secretKey.subarray(0, 32)),
  };
  const { hello, channel } = openChannel(record);
  const accepted = acceptHello(hello, {
    identity: host,
    lookupDevice: () => ({ devicePk: device.publicKey, revoked: false }),
    connectionId: 'bench',
    instanceId: 'bench',
  });
  if (!accepted.ok) throw accepted.error;
  const welcomed = channel.receiveWelcome(accepted.welcome);
  if (!welcomed.ok) throw welcomed.error;
  return { send: accepted.cipher, receive: welcomed.cipher };
}

/** Operations per second of `step`, one median over {@link ROUNDS} timed rounds. */
function medianRate(step: () => void): number {
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let count = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < ROUND_MS) {
      step();
      count++;
      elapsed = performance.now() - start;
    }
    rates.push((count * 1000) / elapsed);
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(ROUNDS / 2)]!;
}

const sizes = [
  { label: '200 B', bytes: 200 },
  { label: '16 KiB', bytes: 16 * 1024 },
  // The largest message a 1 MiB frame carries: the frame adds a 16-byte tag.
  { label: '1 MiB', bytes: MAX_FRAME_BYTES - TAG_BYTES },
];

const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

console.log(`frame crypto: seal + open vs JSON.stringify + JSON.parse, median of ${ROUNDS}`);
console.log('size     crypto frames/s   crypto MB/s   JSON msgs/s   JSON MB/s   crypto/JSON time');
for (const { label, bytes } of sizes) {
  const message = messageOf(bytes);
  const { send, receive } = openBenchChannel();
  // A fresh channel per size keeps every counter far below the rekey limit.
  const crypto = medianRate(() => receive.open(send.seal(message)));
  const plain = medianRate(() => {
    JSON.parse(JSON.stringify(message));
  });
  const mb = (rate: number) => (rate * bytes) / 1e6;
  console.log(
    [
      label.padEnd(8),
      format(crypto).padStart(15),
      format(mb(crypto), 1).padStart(13),
      format(plain).padStart(13),
      format(mb(plain), 1).padStart(11),
      `${format(plain / crypto, 1)}x`.padStart(18),
    ].join(' '),
  );
}
