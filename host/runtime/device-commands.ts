/**
 * Device records: the list remotes see, and renaming and revocation as deduplicated
 * commands.
 */
import { TetherError, type OpArgs, type OpResult } from '../../protocol/index.js';
import type { PairedDevice } from '../../pairing/index.js';
import type { Device } from '../../protocol/index.js';
import type { Store } from '../store/index.js';
import { deviceRecord } from './records.js';
import { markRuleRemoved } from './rule-commands.js';
import type { Actor } from './types.js';

/** Every device with its push state (docs/push.md), `current` marking `by`. */
export function devicesWithPush(store: Store, by: Actor): Device[] {
  return store.read(() => {
    const push = store.push.states();
    return store.devices
      .list()
      .map((device) => deviceRecord(device, by, push.get(device.deviceId)));
  });
}

export function listDevices(store: Store, by: Actor): OpResult<'devices.list'> {
  return { devices: devicesWithPush(store, by) };
}

/**
 * Revokes a device once; revoking a revoked device answers `{}` again and records nothing.
 * Its push subscription goes in the same transaction, with its pending pushes, and so do
 * the allow rules it added from its approval cards (each with `policy.rule_removed`): a
 * device revoked because it was lost or taken no longer decides what runs unasked.
 */
export function revokeDevice(
  store: Store,
  args: OpArgs<'device.revoke'>,
  by: Actor,
): OpResult<'device.revoke'> {
  return store.applyCommand(
    { commandId: args.commandId, op: 'device.revoke', args, deviceId: by },
    (tx) => {
      const device = store.devices.get(args.deviceId);
      if (device === undefined) throw new TetherError('not_found', `no device ${args.deviceId}`);
      if (device.revokedAt !== null) return {};
      store.devices.revoke(device.deviceId, tx.at);
      store.push.unsubscribe(device.deviceId, tx.at, 'the device was revoked');
      tx.append({
        type: 'device.revoked',
        payload: { deviceId: device.deviceId, name: device.name },
      });
      for (const rule of store.allowRules.active()) {
        if (rule.addedBy === device.deviceId) markRuleRemoved(store, tx, rule, by);
      }
      return {};
    },
  ).result;
}

/**
 * Renames a device (`device.rename`, docs/protocol.md §6.2), with `device.renamed` so every
 * subscribed device shows the new name. The name was checked by the op's schema
 * (`DeviceName`); the same name again answers `{}` and records nothing. An unknown device
 * is `not_found`, a revoked one `invalid_state`: its record is history.
 */
export function renameDevice(
  store: Store,
  args: OpArgs<'device.rename'>,
  by: Actor,
): OpResult<'device.rename'> {
  return store.applyCommand(
    { commandId: args.commandId, op: 'device.rename', args, deviceId: by },
    (tx) => {
      const device = store.devices.get(args.deviceId);
      if (device === undefined) throw new TetherError('not_found', `no device ${args.deviceId}`);
      if (device.revokedAt !== null) {
        throw new TetherError('invalid_state', `device ${device.name} was revoked`, {
          details: { state: 'revoked' },
        });
      }
      if (device.name === args.name) return {};
      store.devices.rename(device.deviceId, args.name);
      tx.append({
        type: 'device.renamed',
        payload: { deviceId: device.deviceId, name: args.name, previousName: device.name, by },
      });
      return {};
    },
  ).result;
}

/**
 * Stores a freshly paired device and marks its offer used, in one transaction with
 * `device.paired`. False when the offer was used meanwhile (two devices raced one link).
 * A device that pairs again (after a revoke, with a new offer) is paired afresh.
 */
export function recordPairedDevice(
  store: Store,
  offerId: string,
  device: PairedDevice,
  sas: string,
): boolean {
  return store.write((tx) => {
    if (!store.offers.markUsed(offerId, device.deviceId, sas, tx.at)) return false;
    store.devices.upsert({
      deviceId: device.deviceId,
      devicePk: device.devicePk,
      name: device.name,
      platform: device.platform,
      pairedAt: tx.at,
      lastSeenAt: null,
      revokedAt: null,
    });
    // `platform` goes beyond the original contract's {deviceId, name} (docs/protocol.md §6.4):
    // with it a remote can show the new device (e.g. who approved) without refetching
    // devices.list.
    tx.append({
      type: 'device.paired',
      payload: { deviceId: device.deviceId, name: device.name, platform: device.platform },
    });
    return true;
  });
}
