/**
 * The push ops (docs/protocol.md §6.2, docs/push.md): a device's subscription replaced or
 * dropped as a deduplicated command, and a test push whose outcome is the command's result.
 */
import {
  DEFAULT_PUSH_KINDS,
  TetherError,
  type OpArgs,
  type OpResult,
} from '../../protocol/index.js';
import type { PushDispatcher } from '../push/index.js';
import type { Store } from '../store/index.js';
import type { Actor } from './types.js';

function requirePush(push: PushDispatcher | undefined): PushDispatcher {
  if (push === undefined) {
    throw new TetherError('invalid_state', 'this host does not send pushes', {
      details: { state: 'push_unavailable' },
    });
  }
  return push;
}

/** The asking device, paired and not revoked: pushes go to devices, not to the host's CLI. */
function requireDevice(store: Store, by: Actor): void {
  const device = store.devices.get(by);
  if (device === undefined || device.revokedAt !== null) {
    throw new TetherError('invalid_request', 'only a paired device can subscribe to pushes');
  }
}

/** Stores the device's subscription, replacing its last one (after checking the endpoint). */
export function subscribePush(
  store: Store,
  push: PushDispatcher | undefined,
  args: OpArgs<'push.subscribe'>,
  by: Actor,
): OpResult<'push.subscribe'> {
  const service = requirePush(push);
  service.checkEndpoint(args.subscription.endpoint);
  const { result } = store.applyCommand(
    { commandId: args.commandId, op: 'push.subscribe', args, deviceId: by },
    (tx) => {
      requireDevice(store, by);
      store.push.subscribe({
        deviceId: by,
        endpoint: args.subscription.endpoint,
        p256dh: args.subscription.keys.p256dh,
        auth: args.subscription.keys.auth,
        expirationTime: args.subscription.expirationTime ?? null,
        kinds: [...new Set(args.kinds ?? DEFAULT_PUSH_KINDS)],
        createdAt: tx.at,
      });
      return {};
    },
  );
  service.kick();
  return result;
}

/** Forgets the device's subscription and its pending pushes; `{}` when it had none. */
export function unsubscribePush(
  store: Store,
  args: OpArgs<'push.unsubscribe'>,
  by: Actor,
): OpResult<'push.unsubscribe'> {
  return store.applyCommand(
    { commandId: args.commandId, op: 'push.unsubscribe', args, deviceId: by },
    (tx) => {
      store.push.unsubscribe(by, tx.at, 'the device turned pushes off');
      return {};
    },
  ).result;
}

/**
 * Sends one test push now and answers how it went. Sent once per commandId: a resend gets
 * the stored result without a second push.
 */
export async function testPush(
  store: Store,
  push: PushDispatcher | undefined,
  args: OpArgs<'push.test'>,
  by: Actor,
): Promise<OpResult<'push.test'>> {
  const command = { commandId: args.commandId, op: 'push.test', args, deviceId: by };
  const stored = store.commands.find(args.commandId);
  if (stored !== undefined) {
    // Deduplicated (or a conflict): applyCommand answers from the log and never applies.
    return store.applyCommand(command, () => {
      throw new Error('a stored command was applied again');
    }).result;
  }
  const service = requirePush(push);
  requireDevice(store, by);
  const outcome = await service.test(by);
  return store.applyCommand(command, () => outcome).result;
}
