/**
 * Web Push end to end (issue 13, docs/push.md): a real host process pushes to a fake push
 * service on loopback that verifies each VAPID JWT against the host's key and decrypts each
 * payload with the subscriber keys the test made.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pairDevice, RawChannel } from '../support/raw-channel.js';
import { until } from '../support/wait.js';
import {
  commandId,
  deliveries,
  settled,
  startPushHost,
  submitAsking,
  SUBJECT,
  type PushHost,
} from './push-host.js';

let push: PushHost | undefined;

afterEach(async () => {
  await push?.dispose();
  push = undefined;
});

/** The device list as the channel's device sees it. */
async function devicePush(host: PushHost): Promise<Record<string, unknown> | undefined> {
  const listed = await host.fault.channel.call('devices.list');
  const devices = listed['devices'] as { current: boolean; push?: Record<string, unknown> }[];
  return devices.find((device) => device.current)?.push;
}

describe('web push to a fake push service', () => {
  it('an approval produces exactly one push: VAPID verified, payload decrypted, high urgency, a topic per approval, TTL until expiry', async () => {
    push = await startPushHost();
    const info = await push.fault.channel.call('host.info');
    expect(info['capabilities']).toContain('push');
    expect(push.vapidPublicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);

    const { runId, approvalId, toolCallId, inputDigest } = await submitAsking(push);
    const [received] = await push.fake.waitFor(1);
    expect(received!.problems).toEqual([]);
    expect(received!.claims).toMatchObject({ aud: push.fake.origin, sub: SUBJECT });
    expect(received!.subscriptionId).toBe(push.subscriber.id);
    expect(received!.payload).toEqual({
      v: 1,
      kind: 'approval',
      hostId: push.hostId,
      hostName: push.hostName,
      runId,
      approvalId,
      title: `Approval needed on ${push.hostName}`,
      body: 'run_command in workspace',
      tag: `approval:${push.hostId}:${approvalId}`,
      at: expect.any(Number) as number,
    });
    expect(received!.headers['urgency']).toBe('high');
    expect(received!.headers['topic']).toBe(approvalId);
    const ttl = Number(received!.headers['ttl']);
    expect(ttl).toBeGreaterThan(24 * 3600 - 120);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);

    const [row] = await settled(push.fault);
    expect(row).toMatchObject({ state: 'delivered', attempts: 1, last_status: 201 });
    expect(await devicePush(push)).toMatchObject({
      subscribed: true,
      lastDeliveredAt: expect.any(Number) as number,
      lastError: null,
    });

    // The run ends succeeded after the approval: no push for that by default.
    await push.fault.channel.call('approval.respond', {
      commandId: commandId(),
      approvalId,
      toolCallId,
      inputDigest,
      decision: 'deny',
    });
    await until('the run to end', () =>
      push!.fault.typesOf(runId).includes('session.idle') ? true : undefined,
    );

    // push.test goes out at once and says so; a resend of the same command pushes nothing more.
    const testArgs = { commandId: commandId() };
    expect(await push.fault.channel.call('push.test', testArgs)).toEqual({
      status: 'delivered',
      httpStatus: 201,
    });
    expect(await push.fault.channel.call('push.test', testArgs)).toEqual({
      status: 'delivered',
      httpStatus: 201,
    });
    expect(push.fake.received).toHaveLength(2);
    expect(push.fake.received[1]!.payload).toMatchObject({ kind: 'test', runId: null });

    // Nothing secret in the log: not the subscription's keys or path, not the VAPID key.
    const log = readFileSync(join(push.fault.host.dataDir, 'logs', 'host.log'), 'utf8');
    const pushKey = z
      .object({ seed: z.string() })
      .parse(JSON.parse(readFileSync(join(push.fault.host.dataDir, 'push-key.json'), 'utf8')));
    expect(log).toContain('push delivered');
    for (const secret of [
      push.subscriber.subscription.keys.auth,
      push.subscriber.subscription.keys.p256dh,
      push.subscriber.id,
      pushKey.seed,
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  it('503 then 201: delivered once, on the second try', async () => {
    push = await startPushHost();
    push.fake.reply({ status: 503 });
    await submitAsking(push);
    const received = await push.fake.waitFor(2);
    expect(received.map((r) => r.status)).toEqual([503, 201]);
    expect(received.map((r) => r.problems)).toEqual([[], []]);
    expect(received[1]!.payload).toEqual(received[0]!.payload);
    const [row] = await settled(push.fault);
    expect(row).toMatchObject({ state: 'delivered', attempts: 2, last_status: 201 });
    // A delivered push is never sent again: one more push (a test) is the only traffic.
    await push.fault.channel.call('push.test', { commandId: commandId() });
    expect(push.fake.received).toHaveLength(3);
    expect(push.fake.received[2]!.payload).toMatchObject({ kind: 'test' });
  });

  it('429 with Retry-After waits at least that long before the next try', async () => {
    push = await startPushHost();
    push.fake.reply({ status: 429, headers: { 'retry-after': '1' } });
    await submitAsking(push);
    const [first, second] = await push.fake.waitFor(2);
    expect(first!.status).toBe(429);
    expect(second!.status).toBe(201);
    // The configured backoff is 100 ms: only the header explains a wait of a second.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
    expect((await settled(push.fault))[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('410 removes the subscription and says so in devices.list', async () => {
    push = await startPushHost();
    push.fake.reply({ status: 410 });
    await submitAsking(push);
    await push.fake.waitFor(1);
    const [row] = await settled(push.fault);
    expect(row).toMatchObject({ state: 'failed', attempts: 1, last_status: 410 });
    const subscriptions = push.fault.query((db) =>
      db.prepare('SELECT device_id FROM push_subscriptions').all(),
    );
    expect(subscriptions).toEqual([]);
    const state = await devicePush(push);
    expect(state).toMatchObject({ subscribed: false, lastDeliveredAt: null });
    expect(String(state?.['lastError'])).toContain('410');
    const test = await push.fault.channel.request('push.test', { commandId: commandId() });
    expect(test.ok ? null : test.error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'not_subscribed' },
    });
  });

  it('a host SIGKILLed with a push pending delivers it once after the restart', async () => {
    push = await startPushHost({ point: 'push-pending' });
    const { runId, approvalId } = await submitAsking(push).catch(async () => {
      // The host may die before the approval is read back over the channel.
      await push!.fault.died();
      return { runId: '', approvalId: '' };
    });
    await push.fault.died();
    expect(push.fake.received).toEqual([]);
    const pending = deliveries(push.fault);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ state: 'pending', attempts: 0, kind: 'approval' });

    await push.fault.restartClean();
    const [received] = await push.fake.waitFor(1);
    expect(received!.problems).toEqual([]);
    expect(received!.payload).toMatchObject({
      kind: 'approval',
      approvalId: pending[0]!.approval_id,
    });
    if (runId !== '') expect(received!.payload).toMatchObject({ runId, approvalId });
    const [row] = await settled(push.fault);
    expect(row).toMatchObject({ state: 'delivered', attempts: 1 });
    // Once: a test push is the only later traffic.
    await push.fault.channel.call('push.test', { commandId: commandId() });
    expect(push.fake.received.map((r) => (r.payload as { kind: string }).kind)).toEqual([
      'approval',
      'test',
    ]);
  });

  it('a revoked device gets nothing: its subscription goes with the revoke', async () => {
    push = await startPushHost();
    const { host: second } = await pairDevice(await push.fault.host.pairLink());
    const channel = await RawChannel.open(second);
    const other = push.fake.subscriber();
    await channel.call('push.subscribe', {
      commandId: commandId(),
      subscription: other.subscription,
    });
    const secondId = second.deviceId;
    channel.socket.socket.terminate();
    await push.fault.channel.call('device.revoke', { commandId: commandId(), deviceId: secondId });
    const rows = push.fault.query((db) =>
      db.prepare('SELECT device_id FROM push_subscriptions').all(),
    ) as { device_id: string }[];
    expect(rows.map((row) => row.device_id)).not.toContain(secondId);

    await submitAsking(push);
    await push.fake.waitFor(1);
    await settled(push.fault);
    // Both would have been enqueued in one transaction: only the paired device's exists.
    expect(deliveries(push.fault).map((row) => row.device_id)).not.toContain(secondId);
    expect(push.fake.received.map((r) => r.subscriptionId)).toEqual([push.subscriber.id]);
  });

  it('refuses endpoints outside the allowed push services with invalid_request', async () => {
    push = await startPushHost({ subscribe: false });
    const keys = push.subscriber.subscription.keys;
    const port = new URL(push.fake.origin).port;
    for (const endpoint of [
      `http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}/push/x`,
      'http://192.168.1.10/push/x',
      'http://localhost:8787/push/x',
      'https://evil.example.com/push/x',
      'https://fcm.googleapis.com.evil.example/push/x',
      'http://fcm.googleapis.com/fcm/send/x',
      'https://user:pw@fcm.googleapis.com/fcm/send/x',
      'file:///etc/passwd',
    ]) {
      const answer = await push.fault.channel.request('push.subscribe', {
        commandId: commandId(),
        subscription: { endpoint, keys },
      });
      expect(answer.ok ? endpoint : answer.error.code, endpoint).toBe('invalid_request');
    }
    const rows = push.fault.query((db) => db.prepare('SELECT * FROM push_subscriptions').all());
    expect(rows).toEqual([]);
    // The known services pass (nothing is sent until something happens).
    await push.fault.channel.call('push.subscribe', {
      commandId: commandId(),
      subscription: { endpoint: 'https://web.push.apple.com/QGZ1c2g', keys },
    });
    expect(await devicePush(push)).toMatchObject({ subscribed: true });
  });

  it('an approval answered before its push went out sends nothing more', async () => {
    push = await startPushHost();
    // The first try fails and asks for a second's wait; the answer comes meanwhile.
    push.fake.reply({ status: 503, headers: { 'retry-after': '1' } });
    const { approvalId, toolCallId, inputDigest } = await submitAsking(push);
    await push.fake.waitFor(1);
    await push.fault.channel.call('approval.respond', {
      commandId: commandId(),
      approvalId,
      toolCallId,
      inputDigest,
      decision: 'deny',
    });
    const [row] = await settled(push.fault);
    expect(row).toMatchObject({ state: 'cancelled', attempts: 1 });
    expect(row!.last_error).toContain('answered');
    // Past the time the retry was due: still only the first, failed, try.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(push.fake.received.map((r) => r.status)).toEqual([503]);
    expect(await devicePush(push)).toMatchObject({ lastDeliveredAt: null });
  });
});
