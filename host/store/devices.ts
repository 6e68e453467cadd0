/**
 * Paired devices: their public keys, names and whether they were revoked. When a device
 * was last seen is noted in memory (reads see it at once) and written later, in batches
 * (Store.noteDeviceSeen): it is not a command, and a channel's first request must not
 * wait on the disk for it.
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

export interface StoredDevice {
  deviceId: string;
  devicePk: Uint8Array;
  name: string;
  platform: string;
  pairedAt: number;
  lastSeenAt: number | null;
  revokedAt: number | null;
}

interface DeviceRow {
  device_id: string;
  device_pk: Buffer;
  name: string;
  platform: string;
  paired_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
}

export class Devices {
  private readonly prepare: (sql: string) => Statement;
  /** Last-seen times not written yet, by deviceId. */
  private readonly seen = new Map<string, number>();

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  /** Stores a paired device; pairing again (after a revoke, say) replaces the old record. */
  upsert(device: StoredDevice): void {
    this.seen.delete(device.deviceId);
    this.prepare(
      `INSERT INTO devices (device_id, device_pk, name, platform, paired_at, last_seen_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (device_id) DO UPDATE SET device_pk = excluded.device_pk, name = excluded.name,
           platform = excluded.platform, paired_at = excluded.paired_at,
           last_seen_at = excluded.last_seen_at, revoked_at = excluded.revoked_at`,
    ).run(
      device.deviceId,
      Buffer.from(device.devicePk),
      device.name,
      device.platform,
      device.pairedAt,
      device.lastSeenAt,
      device.revokedAt,
    );
  }

  get(deviceId: string): StoredDevice | undefined {
    const row = this.prepare('SELECT * FROM devices WHERE device_id = ?').get(deviceId) as
      DeviceRow | undefined;
    return row && this.toDevice(row);
  }

  list(): StoredDevice[] {
    const rows = this.prepare('SELECT * FROM devices ORDER BY paired_at').all() as DeviceRow[];
    return rows.map((row) => this.toDevice(row));
  }

  revoke(deviceId: string, at: number): void {
    this.prepare(
      'UPDATE devices SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL',
    ).run(at, deviceId);
  }

  rename(deviceId: string, name: string): void {
    this.prepare('UPDATE devices SET name = ? WHERE device_id = ?').run(name, deviceId);
  }

  /** Notes that the device was seen at `at`; {@link takeSeen} hands it over for writing. */
  noteSeen(deviceId: string, at: number): void {
    this.seen.set(deviceId, at);
  }

  /** The noted last-seen times, forgotten here: the caller writes them with {@link touch}. */
  takeSeen(): Map<string, number> {
    const seen = new Map(this.seen);
    this.seen.clear();
    return seen;
  }

  touch(deviceId: string, at: number): void {
    this.prepare('UPDATE devices SET last_seen_at = ? WHERE device_id = ?').run(at, deviceId);
  }

  private toDevice(row: DeviceRow): StoredDevice {
    return {
      deviceId: row.device_id,
      devicePk: new Uint8Array(row.device_pk),
      name: row.name,
      platform: row.platform,
      pairedAt: row.paired_at,
      lastSeenAt: this.seen.get(row.device_id) ?? row.last_seen_at,
      revokedAt: row.revoked_at,
    };
  }
}
