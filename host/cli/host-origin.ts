/**
 * Where remotes reach this host: its tailnet origin while `--tailscale` publishes it
 * (host/tailscale), else the LAN origin pairing links name (lan-origin.ts).
 */
import { tetherCommand } from '../../common/cli/index.js';
import type { Logger } from '../log/index.js';
import { publishHost, unpublishHost, type TailnetPublication } from '../tailscale/index.js';
import { lanHostName, LocalNameCheck } from './lan-origin.js';
import { defaultOrigin } from './start-banner.js';

export class HostOrigin {
  /** The publication on the tailnet; null without `--tailscale` or before the start. */
  tailnet: TailnetPublication | null = null;
  // Links name the .local name only where it resolves here (asked now, again at each offer).
  readonly #localName = new LocalNameCheck();
  #port = 0;

  constructor(
    private readonly local: { bind: string; tls: boolean; tailscale: boolean },
    private readonly log: Logger,
  ) {
    this.#localName.refresh();
  }

  /** The origin a pairing link names when the request names none. */
  defaultOrigin(port: number): string {
    if (this.tailnet !== null) return this.tailnet.origin;
    this.#localName.refresh();
    return defaultOrigin(this.local.bind, port, this.local.tls, this.lanName());
  }

  /** The `.local` name where it resolves here, else a LAN address. */
  lanName(): string {
    return lanHostName(this.#localName);
  }

  /** Publishes the host listening on `port` on the tailnet, with `--tailscale`. */
  async publish(port: number): Promise<void> {
    if (!this.local.tailscale) return;
    this.#port = port;
    this.tailnet = await publishHost(this.#localHost(), {
      flag: '--tailscale',
      next: `start the host again (${tetherCommand()} start --tailscale, or ${tetherCommand()} service restart for the service)`,
    });
    this.log.info('published on the tailnet', { ...this.tailnet });
  }

  /** Removes the tailnet publication, saying in the log when it could not. */
  async unpublish(): Promise<void> {
    const { tailnet } = this;
    if (tailnet === null) return;
    const problem = await unpublishHost(tailnet, this.#localHost());
    if (problem === null) this.log.info('tailscale serve removed', { origin: tailnet.origin });
    else this.log.warn('tailscale serve was not removed', { origin: tailnet.origin, problem });
  }

  #localHost(): { bind: string; port: number; tls: boolean } {
    return { bind: this.local.bind, port: this.#port, tls: this.local.tls };
  }
}
