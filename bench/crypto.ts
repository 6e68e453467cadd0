/**
 * The channel's crypto on each implementation the host can use: tweetnacl (pure JS, what
 * browsers run), libsodium (sodium-native) and OpenSSL (node:crypto, with a pure-JS
 * secretbox). Prints, as medians of several rounds:
 * - the host's side of one handshake (`acceptHello`: verify, X25519 key pair, sign, X25519,
 *   HKDF), and of a refused hello (a known device, a bad signature);
 * - the primitives one by one;
 * - seal + open of one frame at the sizes the channel sends, next to plain
 *   JSON.stringify + JSON.parse of the same message.
 *
 *   npm run bench:crypto
 */
import {
  acceptHello,
  type ChannelCrypto,
  createIdentity,
  FrameCipher,
  type Identity,
  openChannel,
} from '../pairing/index.js';
import { pureJsCrypto } from '../pairing/testing.js';
import { loadSodiumCrypto, opensslCrypto } from '../pairing/node/testing.js';
import { b64u, MAX_FRAME_BYTES } from '../protocol/index.js';

const ROUNDS = 7;
const ROUND_MS = 200;
const TAG_BYTES = 16;

const implementations: [string, ChannelCrypto][] = [
  ['tweetnacl', pureJsCrypto],
  ['libsodium', loadSodiumCrypto()],
  ['OpenSSL', opensslCrypto()],
];

/** A `res` message whose JSON is exactly `bytes` long (ASCII, so characters = bytes). */
function messageOf(bytes: number): object {
  const empty = JSON.stringify({ t: 'res', id: '1', ok: true, result: { text: '' } }).length;
  return { t: 'res', id: '1', ok: true, result: { text: 'x'.repeat(bytes - empty) } };
}

/**
 * Median over {@link ROUNDS} rounds of the CPU microseconds (user + system, this process)
 * one `step` takes: CPU time rather than wall time, since other processes share the cores.
 */
function medianMicros(step: () => void): number {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let count = 0;
    const start = performance.now();
    const cpu = process.cpuUsage();
    while (performance.now() - start < ROUND_MS) {
      step();
      count++;
    }
    const { user, system } = process.cpuUsage(cpu);
    times.push((user + system) / count);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(ROUNDS / 2)]!;
}

const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const cell = (text: string, width = 12) => text.padStart(width);

/** A paired device's record of the host, and a hello from it (pure JS: the device's side). */
function helloFrom(host: Identity, device: Identity) {
  const record = {
    origin: 'http://localhost:8787',
    hostId: host.id,
    hostPk: b64u(host.publicKey),
    hostName: 'bench',
    deviceId: device.id,
    deviceSeed: b64u(device.secretKey.subarray(0, 32)),
  };
  return openChannel(record).hello;
}

function benchHandshake(): void {
  const host = createIdentity();
  const device = createIdentity();
  const hellos = Array.from({ length: 64 }, () => helloFrom(host, device));
  const forged = hellos.map((hello) => ({ ...hello, sig: hellos[0]!.sig }));
  const options = (crypto: ChannelCrypto) => ({
    identity: host,
    crypto,
    lookupDevice: () => ({ devicePk: device.publicKey, revoked: false }),
    connectionId: 'bench',
    instanceId: 'bench',
  });
  console.log(
    `host CPU per hello (acceptHello, in process), median of ${ROUNDS} rounds of CPU time`,
  );
  console.log(['implementation'.padEnd(16), cell('accepted'), cell('refused')].join(' '));
  const rows = implementations.map(([name, crypto]) => {
    let next = 0;
    const accepted = medianMicros(() => {
      const result = acceptHello(hellos[next++ % hellos.length], options(crypto));
      if (!result.ok) throw result.error;
      result.cipher.close();
    });
    const refused = medianMicros(() => {
      // Skips hello 0, whose signature the forged ones carry.
      const result = acceptHello(forged[1 + (next++ % (forged.length - 1))], options(crypto));
      if (result.ok) throw new Error('a forged hello was accepted');
    });
    console.log(
      [name.padEnd(16), cell(`${format(accepted)} µs`), cell(`${format(refused)} µs`)].join(' '),
    );
    return { accepted, refused };
  });
  const [base, sodium] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    [
      'tweetnacl/sodium'.padEnd(16),
      cell(`${format(base.accepted / sodium.accepted, 0)}x`),
      cell(`${format(base.refused / sodium.refused, 0)}x`),
    ].join(' '),
  );
}

function benchPrimitives(): void {
  const seed = new Uint8Array(32).fill(1);
  const secret = new Uint8Array(32).fill(2);
  const message = new Uint8Array(120).fill(3);
  const pair = pureJsCrypto.keyPairFromSeed(seed);
  const signature = pureJsCrypto.sign(message, pair.secretKey);
  const peer = pureJsCrypto.scalarMultBase(new Uint8Array(32).fill(4));
  const steps: [string, (crypto: ChannelCrypto) => void][] = [
    ['Ed25519 key pair', (crypto) => crypto.keyPairFromSeed(seed)],
    ['Ed25519 sign', (crypto) => crypto.sign(message, pair.secretKey)],
    ['Ed25519 verify', (crypto) => crypto.verify(message, signature, pair.publicKey)],
    ['X25519 base', (crypto) => crypto.scalarMultBase(secret)],
    ['X25519', (crypto) => crypto.scalarMult(secret, peer)],
  ];
  console.log(`\nprimitives, µs per operation, median of ${ROUNDS} rounds`);
  console.log(['operation'.padEnd(18), ...implementations.map(([name]) => cell(name))].join(' '));
  for (const [label, step] of steps) {
    const cells = implementations.map(([, crypto]) => medianMicros(() => step(crypto)));
    console.log([label.padEnd(18), ...cells.map((us) => cell(format(us, 1)))].join(' '));
  }
}

function benchFrames(): void {
  const sizes = [
    { label: '200 B', bytes: 200 },
    { label: '2 KiB', bytes: 2 * 1024 },
    { label: '16 KiB', bytes: 16 * 1024 },
    { label: '64 KiB', bytes: 64 * 1024 },
    // The largest message a 1 MiB frame carries: the frame adds a 16-byte tag.
    { label: '1 MiB', bytes: MAX_FRAME_BYTES - TAG_BYTES },
  ];
  const key = () => new Uint8Array(32).fill(9);
  console.log(
    `\none frame, seal + open (FrameCipher: JSON, UTF-8, secretbox), µs, median of ${ROUNDS} rounds;` +
      ' JSON: JSON.stringify + JSON.parse alone',
  );
  console.log(
    [
      'size'.padEnd(8),
      ...implementations.map(([name]) => cell(name)),
      cell('JSON'),
      cell('sodium/JSON'),
      cell('nacl/JSON'),
    ].join(' '),
  );
  for (const { label, bytes } of sizes) {
    const message = messageOf(bytes);
    const cells = implementations.map(([, crypto]) => {
      // A fresh pair per size keeps every counter far below the rekey limit.
      const send = new FrameCipher({ sendKey: key(), receiveKey: key() }, { crypto });
      const receive = new FrameCipher({ sendKey: key(), receiveKey: key() }, { crypto });
      return medianMicros(() => receive.open(send.seal(message)));
    });
    const plain = medianMicros(() => {
      JSON.parse(JSON.stringify(message));
    });
    console.log(
      [
        label.padEnd(8),
        ...cells.map((us) => cell(format(us, 1))),
        cell(format(plain, 1)),
        cell(`${format(cells[1]! / plain, 2)}x`),
        cell(`${format(cells[0]! / plain, 2)}x`),
      ].join(' '),
    );
  }
}

benchHandshake();
benchPrimitives();
benchFrames();
