/**
 * The origin pairing links name on a host bound to every address: `<name>.local` where
 * that name resolves on this machine (macOS always answers its own mDNS name), else the
 * first LAN address, which a phone on the same network can open whatever its resolver.
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { localHostName } from '../tls/index.js';

/** How long a lookup of the `.local` name may take before it counts as not resolving. */
const LOOKUP_TIMEOUT_MS = 3_000;

/** This machine's first LAN IPv4 address, if it has one. */
function firstLanAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .find((entry) => !entry.internal && entry.family === 'IPv4')?.address;
}

/** Whether `<name>.local` resolves here, asked in the background and kept. */
export class LocalNameCheck {
  readonly name: string;
  #resolves: boolean;
  #asking = false;

  constructor(platform: NodeJS.Platform = process.platform) {
    this.name = `${localHostName(platform)}.local`;
    // Until a lookup says otherwise: macOS resolves its own name; elsewhere it is rare.
    this.#resolves = platform === 'darwin';
  }

  /** The last answer: does the `.local` name resolve on this machine? */
  get resolves(): boolean {
    return this.#resolves;
  }

  /** Asks again without waiting; the next {@link LocalNameCheck.resolves} has the answer. */
  refresh(): void {
    if (this.#asking) return;
    this.#asking = true;
    const timeout = AbortSignal.timeout(LOOKUP_TIMEOUT_MS);
    const timedOut = new Promise<never>((_resolve, reject) =>
      timeout.addEventListener('abort', () => reject(new Error('timeout')), { once: true }),
    );
    Promise.race([lookup(this.name, { all: true }), timedOut])
      .then((found) => (this.#resolves = found.length > 0))
      .catch(() => (this.#resolves = false))
      .finally(() => (this.#asking = false));
  }
}

/**
 * The host part of the origin a link names for a wildcard bind: the `.local` name when it
 * resolves here, else the first LAN address (the name again when there is none).
 */
export function lanHostName(check: { name: string; resolves: boolean }): string {
  if (check.resolves) return check.name;
  return firstLanAddress() ?? check.name;
}
