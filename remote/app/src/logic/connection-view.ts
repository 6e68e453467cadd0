/**
 * Each host's own connection state (its line in the banner, its row on the runs screen),
 * and the banner over them all: the hosts in trouble, each by name, with a countdown to
 * the next try. A host that refused this device for good (unknown to it, revoked, another
 * protocol) waits for the user (Pair again, Forget) on its row and does not take over the
 * banner while another host can connect.
 */
import type { ConnectionStatus } from '#client';

/** What the banner shows (`data-status`). */
export type BannerStatus = 'connecting' | 'live' | 'reconnecting' | 'offline' | 'host-restarted';

/** One host's state (`data-state` of its row). */
export type HostStateKind =
  | 'live'
  | 'host-restarted'
  | 'connecting'
  | 'reconnecting'
  | 'offline'
  | 'revoked'
  | 'unknown-device'
  | 'unsupported'
  | 'failed'
  | 'closed';

/** How long "host restarted" stays up after reconnecting to a restarted host. */
export const RESTART_NOTICE_MS = 8_000;

/** One host's connection as the banner needs it. */
export interface HostLink {
  hostId: string;
  /** The host's name, told apart from other hosts of the same name (host-labels.ts). */
  label: string;
  status: ConnectionStatus;
  /** When the last reconnect found a new host instance. */
  restartedAt: number | undefined;
}

/** One host's state in words, without its name. */
export interface HostLine {
  hostId: string;
  label: string;
  status: BannerStatus;
  state: HostStateKind;
  text: string;
  /** Waiting out a backoff: a tap on Retry now tries at once. */
  retryable: boolean;
  /** The host refused this device for good: only pairing again or forgetting it helps. */
  needsAction: boolean;
}

/** The banner: its status, its words, and the hosts it names. */
export interface Banner {
  status: BannerStatus;
  text: string;
  lines: readonly HostLine[];
}

const OFFLINE_TEXT = 'Offline: showing what was last seen';

const SEVERITY: readonly BannerStatus[] = [
  'offline',
  'reconnecting',
  'connecting',
  'host-restarted',
  'live',
];

/**
 * One host's line. Offline wins over whatever the socket says: a browser going offline
 * does not always close an open socket, and nothing passes through it then.
 */
export function hostLine(link: HostLink, online: boolean, now: number): HostLine {
  const base = { hostId: link.hostId, label: link.label };
  const line = (
    status: BannerStatus,
    state: HostStateKind,
    text: string,
    more: Partial<HostLine> = {},
  ): HostLine => ({ ...base, status, state, text, retryable: false, needsAction: false, ...more });
  const { status } = link;
  if (!online && status.state !== 'stopped') return line('offline', 'offline', 'offline');
  switch (status.state) {
    case 'open':
      if (link.restartedAt !== undefined && now - link.restartedAt < RESTART_NOTICE_MS) {
        return line('host-restarted', 'host-restarted', 'restarted; caught up');
      }
      return line('live', 'live', 'live');
    case 'connecting':
      if (status.attempt === 0) return line('connecting', 'connecting', 'connecting…');
      return line('reconnecting', 'reconnecting', `reconnecting (attempt ${status.attempt})`);
    case 'waiting': {
      const seconds = Math.max(0, Math.ceil((status.retryAt - now) / 1000));
      return line(
        'reconnecting',
        'reconnecting',
        `reconnecting (attempt ${status.attempt}) in ${seconds} s`,
        { retryable: true },
      );
    }
    case 'stopped':
      return { ...line('offline', 'failed', ''), ...stoppedLine(status.reason), needsAction: true };
    case 'closed':
      return line('offline', 'closed', 'disconnected', { needsAction: true });
  }
}

/**
 * Whether commands go out now: connected and online. Otherwise they wait in the outbox
 * (offline, the socket may still look open while nothing passes).
 */
export function sendsNow(status: ConnectionStatus, online: boolean): boolean {
  return online && status.state === 'open';
}

/**
 * The banner over every host: the hosts not live, the most troubled first, each by its
 * name; the live ones when none is in trouble. Hosts that refused this device are left
 * out while another host can connect (their rows say it, with what to do).
 */
export function appBanner(links: readonly HostLink[], online: boolean, now: number): Banner {
  if (links.length === 0) {
    return online
      ? { status: 'connecting', text: 'Not paired with a host yet', lines: [] }
      : { status: 'offline', text: 'Offline', lines: [] };
  }
  if (!online) return { status: 'offline', text: OFFLINE_TEXT, lines: [] };
  const lines = links.map((link) => hostLine(link, online, now));
  const usable = lines.filter((line) => !line.needsAction);
  const candidates = usable.length === 0 ? lines : usable;
  const troubled = candidates.filter((line) => line.status !== 'live');
  const shown = (troubled.length === 0 ? candidates : troubled)
    .slice()
    .sort((a, b) => SEVERITY.indexOf(a.status) - SEVERITY.indexOf(b.status));
  const status = shown[0]?.status ?? 'live';
  const text = shown.map((line) => `${line.label}: ${line.text}`).join(' · ');
  return { status, text, lines: shown };
}

function stoppedLine(
  reason: 'revoked' | 'unauthorized' | 'unsupported' | 'failed',
): Pick<HostLine, 'state' | 'text'> {
  switch (reason) {
    case 'revoked':
      return { state: 'revoked', text: 'this device was revoked' };
    case 'unauthorized':
      return { state: 'unknown-device', text: 'the host does not know this device' };
    case 'unsupported':
      return { state: 'unsupported', text: 'the host speaks another protocol version' };
    case 'failed':
      return { state: 'failed', text: 'cannot connect' };
  }
}
