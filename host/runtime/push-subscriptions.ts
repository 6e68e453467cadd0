/**
 * The devices' Web Push subscriptions as the push ops reach them (push-commands.ts), and
 * the key remotes subscribe with.
 */
import type { OpArgs, OpResult } from '../../protocol/index.js';
import type { PushDispatcher } from '../push/index.js';
import type { Store } from '../store/index.js';
import { subscribePush, testPush, unsubscribePush } from './push-commands.js';
import type { Actor } from './types.js';

export class PushSubscriptions {
  constructor(
    private readonly store: Store,
    private readonly push: PushDispatcher | undefined,
  ) {}

  /** The VAPID public key remotes subscribe with; null when this host sends no pushes. */
  get vapidPublicKey(): string | null {
    return this.push?.vapidPublicKey ?? null;
  }

  /** Replaces the asking device's subscription (`invalid_request` for an endpoint not allowed). */
  subscribe(args: OpArgs<'push.subscribe'>, by: Actor): OpResult<'push.subscribe'> {
    return subscribePush(this.store, this.push, args, by);
  }

  /** Drops the asking device's subscription and its pending pushes. */
  unsubscribe(args: OpArgs<'push.unsubscribe'>, by: Actor): OpResult<'push.unsubscribe'> {
    return unsubscribePush(this.store, args, by);
  }

  /** Sends a test push to the asking device now; resolves with how it went. */
  test(args: OpArgs<'push.test'>, by: Actor): Promise<OpResult<'push.test'>> {
    return testPush(this.store, this.push, args, by);
  }
}
