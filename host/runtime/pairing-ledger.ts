/**
 * Pairing offers and what became of them: the admin page's QR code stored until used or
 * expired, failed attempts counted, and the device that completed pairing recorded.
 */
import type { PairedDevice, PairOffer } from '../../pairing/index.js';
import type { Store, StoredOffer } from '../store/index.js';
import { recordPairedDevice } from './device-commands.js';

export class PairingLedger {
  constructor(private readonly store: Store) {}

  /** Stores a new pairing offer until it is used or expires. */
  recordOffer(offer: PairOffer): void {
    this.store.write((tx) => this.store.offers.insert(offer, tx.at));
  }

  /** A pairing offer with what became of it; undefined once pruned or never made. */
  findOffer(offerId: string): StoredOffer | undefined {
    return this.store.offers.get(offerId);
  }

  /**
   * Ends a pending offer now (`tether pair` stopped by Ctrl-C): its link no longer pairs.
   * False when the offer was used already or had ended.
   */
  endOffer(offerId: string): boolean {
    return this.store.write((tx) => this.store.offers.end(offerId, tx.at));
  }

  /** Counts a failed pairing attempt on an offer (enough of them void it). */
  countFailure(offerId: string): void {
    this.store.write(() => this.store.offers.countFailure(offerId));
  }

  /** Stores a device that completed pairing; false when its offer was used meanwhile. */
  recordPairedDevice(offerId: string, device: PairedDevice, sas: string): boolean {
    return recordPairedDevice(this.store, offerId, device, sas);
  }
}
