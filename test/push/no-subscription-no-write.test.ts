/**
 * Issue 26: with no device subscribed, the push dispatcher adds nothing to a commit (it
 * opened a transaction of its own on every run end and approval). Writes are counted
 * with SQLite's `total_changes()` on the store's own connection, the one the dispatcher
 * writes through. Once a device subscribes, a run's end is pushed; one that ended
 * before it subscribed is not.
 */
import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PushDispatcher } from '../../host/push/index.js';
import { newId, Store } from '../../host/store/index.js';
import { b64u } from '../../protocol/index.js';
import { startFakePushService } from '../support/fake-push-service.js';
import { tempDir } from '../support/temp-dir.js';

const SUBJECT = 'mailto:push-tests@example.org';
const DEVICE = 'dev_issue26';

/** Lets the dispatcher's `setImmediate` after a commit run. */
const afterListeners = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('issue 26: the push dispatcher with nobody subscribed', () => {
  it('writes nothing on run ends until a device subscribes, then pushes only later ones', async () => {
    await using dir = tempDir('tether-issue-26-push-');
    const fake = await startFakePushService();
    const store = await Store.open({ dataDir: dir.path });
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const publicKey = b64u(ecdh.getPublicKey());
    fake.expect(publicKey, SUBJECT);
    const dispatcher = new PushDispatcher(store, {
      host: { hostId: 'host_issue26', hostName: 'test', workspaceName: () => 'w' },
      keys: { publicKey, privateKey: b64u(ecdh.getPrivateKey()), created: true },
      settings: {
        subject: SUBJECT,
        allowedEndpoints: [fake.origin],
        body: 'names',
        initialDelayMs: 100,
        maxDelayMs: 400,
        maxAttempts: 3,
        requestTimeoutMs: 3000,
      },
      log: () => undefined,
    });
    const changes = () =>
      (store.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const sessionId = newId('ses');
    store.write((tx) =>
      store.runs.insertSession({
        id: sessionId,
        title: 'pushes',
        workspace: '/w',
        createdAt: tx.at,
        activeRunId: null,
      }),
    );
    /** A run that fails, in one commit with its `run.finished`. */
    const failRun = (): string => {
      const runId = newId('run');
      store.write((tx) => {
        store.runs.insertRun({
          id: runId,
          sessionId,
          state: 'failed',
          input: { text: 'go' },
          model: 'm',
          createdAt: tx.at,
          startedAt: tx.at,
          finishedAt: tx.at,
          continuesRunId: null,
          error: null,
          commandId: runId,
          createdBy: DEVICE,
          idleAt: null,
        });
        tx.append({ type: 'run.finished', sessionId, runId, payload: { state: 'failed' } });
      });
      return runId;
    };
    try {
      dispatcher.start();
      await afterListeners();

      const before = changes();
      failRun();
      const committed = changes();
      expect(committed).toBeGreaterThan(before);
      await afterListeners();
      expect(changes()).toBe(committed);

      const subscriber = fake.subscriber();
      store.write((tx) => {
        store.devices.upsert({
          deviceId: DEVICE,
          devicePk: new Uint8Array(32),
          name: 'phone',
          platform: 'test',
          pairedAt: tx.at,
          lastSeenAt: null,
          revokedAt: null,
        });
        store.push.subscribe({
          deviceId: DEVICE,
          endpoint: subscriber.subscription.endpoint,
          p256dh: subscriber.subscription.keys.p256dh,
          auth: subscriber.subscription.keys.auth,
          expirationTime: null,
          kinds: ['approval', 'run_failed'],
          createdAt: tx.at,
        });
      });
      const later = failRun();
      const subscribed = changes();
      await afterListeners();
      // The same wait sees the dispatcher's write once someone is subscribed.
      expect(changes()).toBeGreaterThan(subscribed);
      const [push] = await fake.waitFor(1);
      expect(push!.problems).toEqual([]);
      expect(push!.payload).toMatchObject({ kind: 'run_failed', runId: later });
      expect(fake.received).toHaveLength(1);
    } finally {
      await dispatcher.stop();
      store.close();
      await fake.close();
    }
  });
});
