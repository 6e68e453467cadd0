/**
 * A real host process (test/support/fault-host.ts) that may push to a fake push service
 * on loopback (test/support/fake-push-service.ts): the fake's origin is listed in
 * `push.allowedEndpoints`, retries are short, and the paired raw channel subscribes with a
 * subscriber the fake made.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { until } from '../support/wait.js';
import {
  startFakePushService,
  type FakePushService,
  type FakeSubscriber,
} from '../support/fake-push-service.js';
import { toolCallTurn, textTurn } from '../support/scripted-model-server.js';

export const SUBJECT = 'mailto:push-tests@example.org';

export interface PushHost {
  fault: FaultHost;
  fake: FakePushService;
  /** The channel device's subscriber. */
  subscriber: FakeSubscriber;
  hostId: string;
  hostName: string;
  vapidPublicKey: string;
  dispose(): Promise<void>;
}

const HostInfo = z.looseObject({
  hostId: z.string(),
  name: z.string(),
  capabilities: z.array(z.string()),
  push: z.object({ vapidPublicKey: z.string() }),
});

export const commandId = (): string => randomUUID();

/** Starts the fake and the host (armed with `point`, if any), and subscribes the channel's device. */
export async function startPushHost(
  options: {
    point?: string;
    subscribe?: boolean;
    push?: Record<string, unknown>;
    kinds?: string[];
  } = {},
): Promise<PushHost> {
  const fake = await startFakePushService();
  const fault = await startFaultHost({
    ...(options.point === undefined ? {} : { point: options.point }),
    config: {
      push: {
        subject: SUBJECT,
        allowedEndpoints: [fake.origin],
        retry: { initialDelayMs: 100, maxDelayMs: 400, maxAttempts: 4, requestTimeoutMs: 3000 },
        ...options.push,
      },
    },
  });
  const info = HostInfo.parse(await fault.channel.call('host.info'));
  fake.expect(info.push.vapidPublicKey, SUBJECT);
  const subscriber = fake.subscriber();
  if (options.subscribe !== false) {
    await fault.channel.call('push.subscribe', {
      commandId: commandId(),
      subscription: subscriber.subscription,
      ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
    });
  }
  return {
    fault,
    fake,
    subscriber,
    hostId: info.hostId,
    hostName: info.name,
    vapidPublicKey: info.push.vapidPublicKey,
    async dispose() {
      await fault.dispose();
      await fake.close();
    },
  };
}

/** Submits a run whose model proposes a command policy asks about; resolves with its ids. */
export async function submitAsking(
  push: PushHost,
): Promise<{ runId: string; approvalId: string; toolCallId: string; inputDigest: string }> {
  push.fault.model.push(
    toolCallTurn([
      { id: 'call_ask', name: 'run_command', arguments: '{"command":"sh unlisted.sh"}' },
    ]),
    textTurn('Done.'),
  );
  const submitted = await push.fault.channel.call('run.submit', {
    commandId: commandId(),
    input: { text: 'Run the unlisted script' },
  });
  const runId = String(submitted['runId']);
  const approval = await until('the approval', () => approvalOf(push.fault, runId));
  return { runId, ...approval };
}

/** The run's approval, once it is recorded. */
export function approvalOf(
  fault: FaultHost,
  runId: string,
): { approvalId: string; toolCallId: string; inputDigest: string } | undefined {
  const row = fault.query((db) =>
    db.prepare('SELECT id, tool_call_id, input_digest FROM approvals WHERE run_id = ?').get(runId),
  ) as { id: string; tool_call_id: string; input_digest: string } | undefined;
  return row && { approvalId: row.id, toolCallId: row.tool_call_id, inputDigest: row.input_digest };
}

export interface DeliveryRow {
  id: number;
  device_id: string;
  kind: string;
  approval_id: string | null;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
}

/** Every push the store holds, oldest first. */
export function deliveries(fault: FaultHost): DeliveryRow[] {
  return fault.query((db) =>
    db.prepare('SELECT * FROM push_deliveries ORDER BY id').all(),
  ) as DeliveryRow[];
}

/** Waits until the store's push `id` is settled (not pending). */
export function settled(fault: FaultHost, count = 1): Promise<DeliveryRow[]> {
  return until(`${count} settled pushes`, () => {
    const rows = deliveries(fault).filter((row) => row.state !== 'pending');
    return rows.length >= count ? rows : undefined;
  });
}
