/**
 * The paired devices as the server and the admin API use them: the list remotes see,
 * renaming and revocation (device-commands.ts), and the record of one device.
 */
import type { OpArgs, OpResult } from '../../protocol/index.js';
import type { Store, StoredDevice } from '../store/index.js';
import { listDevices, renameDevice, revokeDevice } from './device-commands.js';
import type { Actor } from './types.js';

export class DeviceDirectory {
  constructor(private readonly store: Store) {}

  /** Every device with its push state, `current` marking `by`. */
  list(by: Actor): OpResult<'devices.list'> {
    return listDevices(this.store, by);
  }

  /** A paired device, revoked or not; undefined for one this host never paired. */
  find(deviceId: string): StoredDevice | undefined {
    return this.store.devices.get(deviceId);
  }

  /** Records the revocation; the server then closes the device's sockets. */
  revoke(args: OpArgs<'device.revoke'>, by: Actor): OpResult<'device.revoke'> {
    return revokeDevice(this.store, args, by);
  }

  /** Renames a device; `by` is the device asking, or `"admin"`. */
  rename(args: OpArgs<'device.rename'>, by: Actor): OpResult<'device.rename'> {
    return renameDevice(this.store, args, by);
  }

  /**
   * Records that `deviceId` was seen now: at once for readers, on disk within seconds
   * (Store.noteDeviceSeen), never waiting on the disk.
   */
  noteSeen(deviceId: string): void {
    this.store.noteDeviceSeen(deviceId);
  }
}
