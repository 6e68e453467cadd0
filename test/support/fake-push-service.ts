/**
 * A fake Web Push service on loopback for tests, written from the RFCs rather than from
 * web-push: it checks each push's VAPID JWT (RFC 8292: ES256, `aud` the endpoint's origin,
 * `exp` at most 24 h ahead, `sub` the subject) against the host's public key, decrypts its
 * payload (RFC 8291 / RFC 8188 `aes128gcm`) with the subscriber keys the test made (its own
 * P-256 key pair and 16-byte auth secret), records everything, and answers from a script
 * (201 by default; 503, 429 with Retry-After, 410…).
 */
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
  type ECDH,
} from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** One scripted answer. */
export interface PushReply {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

/** One push as the fake received it, checked and decrypted. */
export interface ReceivedPush {
  /** When the request arrived (ms, Date.now()). */
  at: number;
  /** The subscription it was addressed to (the last path segment). */
  subscriptionId: string;
  headers: IncomingHttpHeaders;
  /** The JWT's claims, once its signature verified. */
  claims: { aud: string; exp: number; sub: string };
  /** The decrypted payload, parsed as JSON. */
  payload: unknown;
  /** Every check that failed (empty for a valid push). */
  problems: string[];
  /** The status the fake answered. */
  status: number;
}

/** A subscriber made by the test: its subscription JSON and its secrets. */
export interface FakeSubscriber {
  id: string;
  /** What a browser's `PushSubscription.toJSON()` gives, for `push.subscribe`. */
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
}

export interface FakePushService {
  /** `http://127.0.0.1:PORT`: list it in the host's `push.allowedEndpoints`. */
  readonly origin: string;
  /** Every push received, in order. */
  readonly received: ReceivedPush[];
  /** A new subscriber with its own P-256 key pair and auth secret. */
  subscriber(): FakeSubscriber;
  /** Queues answers; each push takes the next one, then 201. */
  reply(...replies: PushReply[]): void;
  /** The host's VAPID public key (b64u, from `host.info`) and subject the JWTs must carry. */
  expect(vapidPublicKey: string, subject: string): void;
  /** Resolves once `count` pushes were received. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

const JwtHeader = z.object({ typ: z.literal('JWT').optional(), alg: z.literal('ES256') });
const JwtClaims = z.object({ aud: z.string(), exp: z.number().int(), sub: z.string() });

function b64uDecode(text: string): Buffer {
  return Buffer.from(text, 'base64url');
}

/** RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<public key>`; checks the ES256 signature. */
function checkVapid(
  header: string | undefined,
  expected: { key: string; subject: string; audience: string },
  problems: string[],
): ReceivedPush['claims'] {
  const none = { aud: '', exp: 0, sub: '' };
  const match = /^vapid t=([A-Za-z0-9_.-]+), ?k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (match === null) {
    problems.push(`no vapid Authorization header: ${header ?? '(none)'}`);
    return none;
  }
  const [, jwt, key] = match as unknown as [string, string, string];
  if (key !== expected.key) problems.push('k is not the host VAPID public key');
  const [headerPart = '', claimsPart = '', signaturePart = ''] = jwt.split('.');
  const head = JwtHeader.safeParse(JSON.parse(b64uDecode(headerPart).toString('utf8')));
  if (!head.success) problems.push('the JWT header is not ES256');
  const point = b64uDecode(expected.key);
  const publicKey = createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    b64uDecode(signaturePart),
  );
  if (!signed) problems.push('the JWT signature does not verify with the host VAPID key');
  const claims = JwtClaims.safeParse(JSON.parse(b64uDecode(claimsPart).toString('utf8')));
  if (!claims.success) {
    problems.push('the JWT claims lack aud, exp or sub');
    return none;
  }
  const now = Math.floor(Date.now() / 1000);
  if (claims.data.aud !== expected.audience)
    problems.push(`aud ${claims.data.aud} is not the endpoint origin`);
  if (claims.data.exp <= now) problems.push('the JWT has expired');
  if (claims.data.exp > now + 24 * 3600) problems.push('exp is more than 24 h ahead');
  if (claims.data.sub !== expected.subject)
    problems.push(`sub ${claims.data.sub} is not the subject`);
  return claims.data;
}

/** RFC 8291 §3.4 and RFC 8188 §2: decrypts one `aes128gcm` body for the subscriber. */
function decrypt(
  body: Buffer,
  subscriber: { ecdh: ECDH; auth: Buffer },
  problems: string[],
): unknown {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (idLength !== 65) problems.push(`keyid is ${idLength} bytes, not a 65-byte P-256 point`);
  if (ciphertext.length > recordSize) problems.push('more than one record');
  const uaPublic = subscriber.ecdh.getPublicKey();
  const ecdhSecret = subscriber.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, subscriber.auth, keyInfo, 32));
  const cek = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2)
    problems.push('the record does not end with the last-record delimiter 0x02');
  return JSON.parse(padded.subarray(0, end).toString('utf8')) as unknown;
}

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakePushService(): Promise<FakePushService> {
  const subscribers = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  const replies: PushReply[] = [];
  const received: ReceivedPush[] = [];
  const waiters = new Set<() => void>();
  let expected = { key: '', subject: '' };
  let origin = '';

  const answer = (res: ServerResponse, reply: PushReply): void => {
    const send = () => {
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.status >= 400 ? `{"reason":"scripted ${reply.status}"}` : '');
    };
    if (reply.delayMs === undefined) send();
    else setTimeout(send, reply.delayMs);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const id = (req.url ?? '').split('/').at(-1) ?? '';
      const subscriber = subscribers.get(id);
      const problems: string[] = [];
      if (req.method !== 'POST') problems.push(`method ${req.method}`);
      if (req.headers['content-encoding'] !== 'aes128gcm')
        problems.push('Content-Encoding is not aes128gcm');
      const claims = checkVapid(
        req.headers.authorization,
        { ...expected, audience: origin },
        problems,
      );
      let payload: unknown = null;
      if (subscriber === undefined) problems.push(`unknown subscription ${id}`);
      else {
        try {
          payload = decrypt(Buffer.concat(chunks), subscriber, problems);
        } catch (error) {
          problems.push(`cannot decrypt: ${String(error)}`);
        }
      }
      const reply = problems.length > 0 ? { status: 400 } : (replies.shift() ?? { status: 201 });
      received.push({
        at,
        subscriptionId: id,
        headers: req.headers,
        claims,
        payload,
        problems,
        status: reply.status,
      });
      for (const wake of [...waiters]) wake();
      answer(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    received,
    subscriber() {
      const id = randomBytes(12).toString('base64url');
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      subscribers.set(id, { ecdh, auth });
      return {
        id,
        subscription: {
          endpoint: `${origin}/push/${id}`,
          expirationTime: null,
          keys: {
            p256dh: ecdh.getPublicKey().toString('base64url'),
            auth: auth.toString('base64url'),
          },
        },
      };
    },
    reply: (...more) => void replies.push(...more),
    expect(vapidPublicKey, subject) {
      expected = { key: vapidPublicKey, subject };
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`${received.length} of ${count} pushes in time`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 100);
        });
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
