/**
 * The connection banner's status, from the connections' states: one word for all hosts,
 * the most troubled one winning.
 */
import type { ConnectionStatus } from '#client';

/** What the banner shows (`data-status`). */
export type BannerStatus = 'connecting' | 'live' | 'reconnecting' | 'offline' | 'host-restarted';

/** How long "host restarted" stays up after reconnecting to a restarted host. */
export const RESTART_NOTICE_MS = 8_000;

/** One host's connection as the banner needs it. */
export interface HostLink {
  hostName: string;
  status: ConnectionStatus;
  /** When the last reconnect found a new host instance. */
  restartedAt: number | undefined;
}

/** The banner: its status, and its words. */
export interface Banner {
  status: BannerStatus;
  text: string;
}

const OFFLINE: Banner = { status: 'offline', text: 'Offline: showing what was last seen' };

const SEVERITY: readonly BannerStatus[] = [
  'offline',
  'reconnecting',
  'connecting',
  'host-restarted',
  'live',
];

/**
 * The banner for one host. Offline wins over whatever the socket says: a browser going
 * offline does not always close an open socket, and nothing passes through it then.
 */
export function hostBanner(link: HostLink, online: boolean, now: number): Banner {
  const { status, hostName } = link;
  if (!online && status.state !== 'stopped') return OFFLINE;
  switch (status.state) {
    case 'open':
      if (link.restartedAt !== undefined && now - link.restartedAt < RESTART_NOTICE_MS) {
        return { status: 'host-restarted', text: `${hostName} restarted; caught up` };
      }
      return { status: 'live', text: `${hostName}: live` };
    case 'connecting':
      if (status.attempt === 0) return { status: 'connecting', text: `Connecting to ${hostName}…` };
      return {
        status: 'reconnecting',
        text: `${hostName}: reconnecting (attempt ${status.attempt})`,
      };
    case 'waiting':
      return {
        status: 'reconnecting',
        text: `${hostName}: reconnecting (attempt ${status.attempt}) in ${Math.ceil(status.retryInMs / 1000)} s`,
      };
    case 'stopped':
      return { status: 'offline', text: `${hostName}: ${stopText(status.reason)}` };
    case 'closed':
      return { status: 'offline', text: `${hostName}: disconnected` };
  }
}

/**
 * Whether commands go out now: connected and online. Otherwise they wait in the outbox
 * (offline, the socket may still look open while nothing passes).
 */
export function sendsNow(status: ConnectionStatus, online: boolean): boolean {
  return online && status.state === 'open';
}

/** The banner for every host: the most troubled host's; `connecting` when there is none yet. */
export function appBanner(links: readonly HostLink[], online: boolean, now: number): Banner {
  if (links.length === 0) {
    return online
      ? { status: 'connecting', text: 'Not paired with a host yet' }
      : { status: 'offline', text: 'Offline' };
  }
  const banners = links.map((link) => hostBanner(link, online, now));
  return banners.reduce((worst, banner) =>
    SEVERITY.indexOf(banner.status) < SEVERITY.indexOf(worst.status) ? banner : worst,
  );
}

function stopText(reason: 'revoked' | 'unauthorized' | 'unsupported' | 'failed'): string {
  switch (reason) {
    case 'revoked':
      return 'this device was revoked';
    case 'unauthorized':
      return 'the host does not know this device, or its identity changed';
    case 'unsupported':
      return 'the host speaks another protocol version; update the app';
    case 'failed':
      return 'cannot connect';
  }
}
