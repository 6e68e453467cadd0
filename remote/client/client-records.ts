/**
 * What a client installation keeps (docs/protocol.md sections 1 and 3): its one device
 * identity, made once, and one record per paired host.
 */
import { z } from 'zod/mini';
import {
  createIdentity,
  deserializeIdentity,
  type Identity,
  PairedHost,
  type RandomBytes,
  secureRandomBytes,
  serializeIdentity,
} from '../../pairing/index.js';
import { parseWith } from '../../protocol/index.js';
import type { ClientStorage } from './storage.js';

const IDENTITY_KEY = 'device-identity';
const HOSTS_KEY = 'paired-hosts';

/** Reads and writes the installation's records; writes are serialised so none is lost. */
export class ClientRecords {
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: ClientStorage,
    private readonly randomBytes: RandomBytes = secureRandomBytes,
  ) {}

  /** The device identity, made and stored on first use. */
  deviceIdentity(): Promise<Identity> {
    return this.serially(async () => {
      const stored = await this.storage.get(IDENTITY_KEY);
      if (stored !== undefined) return deserializeIdentity(stored);
      const identity = createIdentity(this.randomBytes);
      await this.storage.set(IDENTITY_KEY, serializeIdentity(identity));
      return identity;
    });
  }

  /** Every paired host, validated (`invalid_request` for a corrupted record). */
  async hosts(): Promise<PairedHost[]> {
    await this.writing;
    return this.readHosts();
  }

  /** Stores a host's record, replacing an earlier one for the same hostId. */
  saveHost(host: PairedHost): Promise<void> {
    return this.serially(async () => {
      const others = (await this.readHosts()).filter((other) => other.hostId !== host.hostId);
      await this.storage.set(HOSTS_KEY, [...others, host]);
    });
  }

  /** Forgets a host's record; other keys (its outbox) are the caller's. */
  deleteHost(hostId: string): Promise<void> {
    return this.serially(async () => {
      const others = (await this.readHosts()).filter((other) => other.hostId !== hostId);
      await this.storage.set(HOSTS_KEY, others);
    });
  }

  private async readHosts(): Promise<PairedHost[]> {
    const stored = await this.storage.get(HOSTS_KEY);
    return stored === undefined ? [] : parseWith(z.array(PairedHost), stored, 'paired hosts');
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.writing.then(task, task);
    this.writing = run.catch(() => undefined);
    return run;
  }
}
