/**
 * Web Push cost on the host (issue 13, docs/push.md), loopback only: the real store and
 * PushDispatcher (web-push's VAPID JWT and aes128gcm encryption, fetch) against a push
 * service in a child process that answers 201.
 *
 * - latency: `tool.approval_requested` committed → the push's POST received, over 1,000
 *   approvals one after another to one subscription (p50, p99);
 * - host CPU per push: the host process's CPU time for those 1,000 approvals, less the
 *   same 1,000 commits with no subscription;
 * - throughput: 10 approvals to 100 subscriptions (1,000 pushes), deliveries per second.
 *
 *   npm run bench:push
 */
import { createECDH, randomBytes } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { PushSettings } from '../host/config/index.js';
import { PushDispatcher } from '../host/push/index.js';
import { Store } from '../host/store/index.js';
import { b64u } from '../protocol/index.js';

const APPROVALS = 1000;
const WIDE_SUBSCRIPTIONS = 100;
const WIDE_APPROVALS = 10;
const TIMEOUT_MS = 120_000;

const Message = z.union([
  z.object({ t: z.literal('ready'), port: z.number() }),
  z.object({ t: z.literal('push'), at: z.number(), topic: z.string(), path: z.string() }),
]);

const wallNow = (): number => performance.timeOrigin + performance.now();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-push-')));
  const receiver = fork(new URL('./push-receiver.js', import.meta.url).pathname, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const arrivals = new Map<string, number[]>();
  let onArrival: (() => void) | null = null;
  const port = await new Promise<number>((resolve) => {
    receiver.on('message', (raw) => {
      const message = Message.parse(raw);
      if (message.t === 'ready') return resolve(message.port);
      const list = arrivals.get(message.topic) ?? [];
      list.push(message.at);
      arrivals.set(message.topic, list);
      onArrival?.();
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  const store = await Store.open({ dataDir: root });
  const settings: PushSettings = {
    subject: 'mailto:bench@example.org',
    allowedEndpoints: [origin],
    body: 'names',
    initialDelayMs: 100,
    maxDelayMs: 1000,
    maxAttempts: 3,
    requestTimeoutMs: 5000,
  };
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const raw = ecdh.getPrivateKey();
  const privateKey = new Uint8Array(32);
  privateKey.set(raw, 32 - raw.length);
  const dispatcher = new PushDispatcher(store, {
    host: { hostId: b64u(randomBytes(16)), hostName: 'bench', workspaceName: () => 'w' },
    keys: { publicKey: b64u(ecdh.getPublicKey()), privateKey: b64u(privateKey), created: true },
    settings,
    log: () => undefined,
  });

  // One session, run and message that every approval's tool call belongs to.
  const db = store.db;
  const t0 = Date.now();
  db.prepare("INSERT INTO sessions VALUES ('ses_b', 'bench', '/w', ?, NULL)").run(t0);
  db.prepare(
    `INSERT INTO runs (id, session_id, state, input_json, created_at, created_by)
       VALUES ('run_b', 'ses_b', 'waiting_for_approval', '{"text":"x"}', ?, 'bench')`,
  ).run(t0);
  db.prepare(
    `INSERT INTO messages (id, run_id, text, finish_reason, provider, native_json, tool_calls_json, created_at)
       VALUES ('msg_b', 'run_b', '', 'tool_calls', 'generic', '{}', '[]', ?)`,
  ).run(t0);
  const digest = `sha256:${'0'.repeat(64)}`;
  let serial = 0;
  /** Commits one pending approval and its event; returns its id and when the commit returned. */
  const commitApproval = (): { approvalId: string; committedAt: number } => {
    serial += 1;
    const approvalId = `apr_${String(serial).padStart(8, '0')}`;
    const toolCallId = `tc_${serial}`;
    const expiresAt = Date.now() + 3_600_000;
    store.write((tx) => {
      db.prepare(
        `INSERT INTO tool_calls (id, run_id, message_id, model_call_id, position, name, input_json, input_digest, state, created_at)
           VALUES (?, 'run_b', 'msg_b', ?, ?, 'run_command', '{"command":"ls"}', ?, 'waiting_for_approval', ?)`,
      ).run(toolCallId, toolCallId, serial, digest, tx.at);
      db.prepare(
        `INSERT INTO approvals (id, tool_call_id, run_id, state, name, input_json, workspace, input_digest, preview_json, reason, created_at, expires_at)
           VALUES (?, ?, 'run_b', 'pending', 'run_command', '{"command":"ls"}', '/w', ?, ?, 'bench', ?, ?)`,
      ).run(
        approvalId,
        toolCallId,
        digest,
        JSON.stringify({ kind: 'command', command: 'ls', cwd: '/w' }),
        tx.at,
        expiresAt,
      );
      tx.append({
        type: 'tool.approval_requested',
        sessionId: 'ses_b',
        runId: 'run_b',
        toolCallId,
        payload: {
          approvalId,
          name: 'run_command',
          input: { command: 'ls' },
          workspace: '/w',
          inputDigest: digest,
          reason: 'bench',
          preview: { kind: 'command', command: 'ls', cwd: '/w' },
          expiresAt,
        },
      });
    });
    return { approvalId, committedAt: wallNow() };
  };
  const waitFor = (done: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for pushes')), TIMEOUT_MS);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        onArrival = null;
        resolve();
      };
      onArrival = check;
      check();
    });
  const subscribe = (deviceId: string): void => {
    const keys = createECDH('prime256v1');
    keys.generateKeys();
    store.write((tx) => {
      store.devices.upsert({
        deviceId,
        devicePk: randomBytes(32),
        name: deviceId,
        platform: 'bench',
        pairedAt: tx.at,
        lastSeenAt: null,
        revokedAt: null,
      });
      store.push.subscribe({
        deviceId,
        endpoint: `${origin}/push/${deviceId}`,
        p256dh: b64u(keys.getPublicKey()),
        auth: b64u(randomBytes(16)),
        expirationTime: null,
        kinds: ['approval'],
        createdAt: tx.at,
      });
    });
  };

  dispatcher.start();
  // Baseline: the same commits with nobody subscribed (the dispatcher still reads each event).
  for (let i = 0; i < 50; i += 1) commitApproval();
  let cpu = process.cpuUsage();
  for (let i = 0; i < APPROVALS; i += 1) {
    commitApproval();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const baseCpu = process.cpuUsage(cpu);

  subscribe('device_one');
  // Warm-up: a connection to the receiver and the code paths.
  for (let i = 0; i < 50; i += 1) {
    const { approvalId } = commitApproval();
    await waitFor(() => arrivals.has(approvalId));
  }
  const latencies: number[] = [];
  cpu = process.cpuUsage();
  for (let i = 0; i < APPROVALS; i += 1) {
    const { approvalId, committedAt } = commitApproval();
    await waitFor(() => arrivals.has(approvalId));
    latencies.push(arrivals.get(approvalId)![0]! - committedAt);
  }
  const pushCpu = process.cpuUsage(cpu);
  // The last push's delivery is recorded after its POST returned.
  await new Promise((resolve) => setTimeout(resolve, 50));
  latencies.sort((a, b) => a - b);
  const perPushUs = (pushCpu.user + pushCpu.system - (baseCpu.user + baseCpu.system)) / APPROVALS;

  for (let i = 1; i < WIDE_SUBSCRIPTIONS; i += 1) subscribe(`device_${i}`);
  const before = [...arrivals.values()].reduce((sum, list) => sum + list.length, 0);
  const started = wallNow();
  const ids: string[] = [];
  for (let i = 0; i < WIDE_APPROVALS; i += 1) ids.push(commitApproval().approvalId);
  const expected = WIDE_SUBSCRIPTIONS * WIDE_APPROVALS;
  await waitFor(() => ids.every((id) => (arrivals.get(id)?.length ?? 0) >= WIDE_SUBSCRIPTIONS));
  const lastArrival = Math.max(...ids.flatMap((id) => arrivals.get(id) ?? []));
  const seconds = (lastArrival - started) / 1000;
  const total = [...arrivals.values()].reduce((sum, list) => sum + list.length, 0) - before;

  console.log('push bench (loopback, push service in a child process answering 201)');
  console.log(
    `  commit → POST received, ${APPROVALS} approvals, 1 subscription: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies.at(-1)!.toFixed(2)} ms`,
  );
  console.log(
    `  host CPU per push: ${perPushUs.toFixed(0)} µs (enqueue commit, VAPID JWT, aes128gcm, fetch, delivery commit; the approval's own commit subtracted)`,
  );
  console.log(
    `  ${WIDE_APPROVALS} approvals × ${WIDE_SUBSCRIPTIONS} subscriptions: ${total} of ${expected} pushes in ${seconds.toFixed(2)} s = ${(expected / seconds).toFixed(0)} deliveries/s (32 in flight)`,
  );
  await dispatcher.stop();
  store.close();
  receiver.disconnect();
  rmSync(root, { recursive: true, force: true });
}

await main();
