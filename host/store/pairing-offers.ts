/**
 * Pairing offers: single use, short-lived, void after three failed attempts.
 */
import type { PairOffer } from '../../pairing/index.js';
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

interface OfferRow {
  offer_id: string;
  psk: Buffer;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  failed_attempts: number;
  device_id: string | null;
  sas: string | null;
}

/** An offer with what became of it: the device that paired and the SAS both sides showed. */
export interface StoredOffer extends PairOffer {
  createdAt: number;
  usedAt: number | null;
  deviceId: string | null;
  sas: string | null;
}

function toOffer(row: OfferRow): StoredOffer {
  return {
    offerId: row.offer_id,
    psk: new Uint8Array(row.psk),
    expiresAt: row.expires_at,
    used: row.used_at !== null,
    failedAttempts: row.failed_attempts,
    createdAt: row.created_at,
    usedAt: row.used_at,
    deviceId: row.device_id,
    sas: row.sas,
  };
}

export class PairingOffers {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  insert(offer: PairOffer, createdAt: number): void {
    this.prepare(
      'INSERT INTO pairing_offers (offer_id, psk, created_at, expires_at, failed_attempts) VALUES (?, ?, ?, ?, ?)',
    ).run(offer.offerId, Buffer.from(offer.psk), createdAt, offer.expiresAt, offer.failedAttempts);
  }

  get(offerId: string): StoredOffer | undefined {
    const row = this.prepare('SELECT * FROM pairing_offers WHERE offer_id = ?').get(offerId) as
      OfferRow | undefined;
    return row && toOffer(row);
  }

  countFailure(offerId: string): void {
    this.prepare(
      'UPDATE pairing_offers SET failed_attempts = failed_attempts + 1 WHERE offer_id = ?',
    ).run(offerId);
  }

  /** Marks the offer used by `deviceId`; false when it already was (two devices raced). */
  markUsed(offerId: string, deviceId: string, sas: string, at: number): boolean {
    const info = this.prepare(
      'UPDATE pairing_offers SET used_at = ?, device_id = ?, sas = ? WHERE offer_id = ? AND used_at IS NULL',
    ).run(at, deviceId, sas, offerId);
    return info.changes === 1;
  }

  /** Ends a pending offer at `at` (it expires then); false when it was used or had ended. */
  end(offerId: string, at: number): boolean {
    const info = this.prepare(
      'UPDATE pairing_offers SET expires_at = ? WHERE offer_id = ? AND used_at IS NULL AND expires_at > ?',
    ).run(at, offerId, at);
    return info.changes === 1;
  }

  /** Forgets offers that expired before `before`, used or not: nothing refers to them. */
  pruneExpired(before: number): number {
    return this.prepare('DELETE FROM pairing_offers WHERE expires_at < ?').run(before).changes;
  }
}
