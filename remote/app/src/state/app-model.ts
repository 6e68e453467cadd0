/**
 * The app's model: the client core's hosts, connections and states, plus what the UI
 * adds (the cached last state per host, `host.info`, the outbox, the revoked notice).
 * Views read one immutable {@link AppView}; changes reach them at most once an animation
 * frame, so streaming text re-renders in step with the screen, not with the network.
 */
import { isTerminalRunState, type Run } from '#protocol';
import {
  type ConnectionEvent,
  type ConnectionStatus,
  type HostConnection,
  type HostHealth,
  type HostState,
  type PairedHostSummary,
  type PairResult,
  type PendingCommand,
  TetherClient,
  type ClientStorage,
  type WebSocketFactory,
} from '#client';
import { RESTART_NOTICE_MS } from '../logic/connection-view.js';
import { healthFromInfo } from '../logic/host-health.js';
import { HostCache, type HostInfo, sameCachedState } from './host-cache.js';

/** One paired host as the views see it. */
export interface HostView {
  hostId: string;
  hostName: string;
  origin: string;
  /** This device's id on that host. */
  deviceId: string;
  connection: HostConnection;
  /** The host's state: live once subscribed, else the cached last known state. */
  state: HostState;
  /** The state cached when the app opened, if any (shown in `state` until caught up). */
  cached: HostState | undefined;
  /** True while connected and caught up; false means the data shown may be stale. */
  live: boolean;
  status: ConnectionStatus;
  restartedAt: number | undefined;
  /** Commands stored and not answered yet, oldest first. */
  pending: readonly PendingCommand[];
  info: HostInfo | undefined;
  /**
   * What the host last said of its condition (`failed`: it cannot save and refuses every
   * command); undefined when it said nothing since it last connected.
   */
  health: HostHealth | undefined;
  older: OlderRuns;
}

/**
 * Runs older than the snapshot's recent ones, paged in through `runs.list` (newest first)
 * for as long as the page lives. Only final runs are kept: every active run is in the
 * snapshot, and a final run no longer changes.
 */
export interface OlderRuns {
  runs: readonly Run[];
  /** The cursor of the next page; undefined before the first page. */
  next: string | undefined;
  /** The host has no older runs left to page in. */
  done: boolean;
  loading: boolean;
  /** Why the last page failed, for people. */
  error: string | undefined;
}

/** Everything the views show. */
export interface AppView {
  /** False until the stored hosts were read. */
  loaded: boolean;
  hosts: readonly HostView[];
  online: boolean;
  /** The host that revoked this device, until the user pairs again. */
  revokedFrom: string | undefined;
}

interface HostEntry {
  summary: PairedHostSummary;
  connection: HostConnection;
  cached: HostState | undefined;
  /** The live state replaced the cached one (first subscribe answered). */
  caughtUp: boolean;
  status: ConnectionStatus;
  restartedAt: number | undefined;
  pending: readonly PendingCommand[];
  info: HostInfo | undefined;
  health: HostHealth | undefined;
  older: OlderRuns;
  saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** The state last written to the cache, and when. */
  saved: HostState | undefined;
  savedAt: number;
  stop: () => void;
}

/**
 * Longest a durable change waits before the cached state is written: one write per this
 * interval at most while events stream, and a reload soon after a change still finds it.
 */
const SAVE_DELAY_MS = 250;

/** Runs asked for in each `runs.list` page. */
const OLDER_PAGE = 100;

const NO_OLDER_RUNS: OlderRuns = {
  runs: [],
  next: undefined,
  done: false,
  loading: false,
  error: undefined,
};

/** The app's hosts and what the UI knows of them. */
export class AppModel {
  private readonly client: TetherClient;
  private readonly cache: HostCache;
  private readonly hosts = new Map<string, HostEntry>();
  private readonly listeners = new Set<(view: AppView) => void>();
  private current: AppView = { loaded: false, hosts: [], online: true, revokedFrom: undefined };
  private scheduled = false;

  constructor(
    storage: ClientStorage,
    socketFactory: WebSocketFactory,
    private readonly online: () => boolean,
  ) {
    this.client = new TetherClient({ storage, socketFactory });
    this.cache = new HostCache(storage);
    this.client.on((event) => this.connectionEvent(event));
  }

  get view(): AppView {
    return this.current;
  }

  /** Calls `listener` after changes (at most once a frame); returns the unsubscribe function. */
  subscribe(listener: (view: AppView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the paired hosts and connects to each. */
  async start(): Promise<void> {
    const hosts = await this.client.pairedHosts();
    await Promise.all(hosts.map((host) => this.addHost(host)));
    this.current = { ...this.current, loaded: true };
    this.changed();
  }

  /**
   * The network came back or went away (`online`/`offline` events). Gone: the sockets are
   * dropped, since a browser going offline may leave them looking open. Back: each host
   * is tried again at once instead of after its backoff wait.
   */
  networkChanged(): void {
    const online = this.online();
    for (const entry of this.hosts.values()) {
      if (online) entry.connection.retryNow();
      else entry.connection.dropSocket();
    }
    this.changed();
  }

  /**
   * The page came back into view (an iPhone reopening the app after a while): a host
   * waiting out a long backoff is tried at once instead of up to 30 s later.
   */
  pageShown(): void {
    if (!this.online()) return;
    for (const entry of this.hosts.values()) entry.connection.retryNow();
  }

  /**
   * Writes every host's state due for saving now, when the page is hidden or left
   * (`visibilitychange`, `pagehide`): the delayed write may never come. A write started
   * as the page unloads may still be cut short, hence the short delay of the others.
   */
  saveNow(): void {
    for (const entry of this.hosts.values()) {
      if (entry.saveTimer === undefined) continue;
      clearTimeout(entry.saveTimer);
      this.save(entry);
    }
  }

  /** Pages in the next older runs of `hostId` (once at a time; nothing when all are in). */
  async loadOlderRuns(hostId: string): Promise<void> {
    const entry = this.hosts.get(hostId);
    if (entry === undefined || entry.older.loading || entry.older.done) return;
    const { next } = entry.older;
    entry.older = { ...entry.older, loading: true, error: undefined };
    this.changed();
    try {
      const page = await entry.connection.request('runs.list', {
        limit: OLDER_PAGE,
        ...(next === undefined ? {} : { before: next }),
      });
      entry.older = {
        runs: [...entry.older.runs, ...page.runs.filter((run) => isTerminalRunState(run.state))],
        next: page.next,
        done: page.next === undefined,
        loading: false,
        error: undefined,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      entry.older = { ...entry.older, loading: false, error: message };
    }
    this.changed();
  }

  /** Pairs with the host of `link`, then connects to it. */
  async pair(link: string, device: { name: string; platform: string }): Promise<PairResult> {
    const result = await this.client.pair(link, device);
    const summary = (await this.client.pairedHosts()).find((h) => h.hostId === result.hostId);
    if (summary !== undefined && !this.hosts.has(summary.hostId)) await this.addHost(summary);
    this.current = { ...this.current, revokedFrom: undefined };
    this.changed();
    return result;
  }

  /** Forgets a host: its record, outbox, cached state and connection. */
  async forget(hostId: string): Promise<void> {
    const entry = this.hosts.get(hostId);
    if (entry === undefined) return;
    this.hosts.delete(hostId);
    entry.stop();
    if (entry.saveTimer !== undefined) clearTimeout(entry.saveTimer);
    await this.client.forget(hostId);
    await this.cache.forget(hostId);
    this.changed();
  }

  /** This device was revoked by `hostId`: forget the host and say so on the pair screen. */
  async forgetRevoked(hostId: string): Promise<void> {
    const entry = this.hosts.get(hostId);
    if (entry === undefined) return;
    this.current = { ...this.current, revokedFrom: entry.summary.hostName };
    await this.forget(hostId);
  }

  /** The user read the revoked notice. */
  dismissRevoked(): void {
    this.current = { ...this.current, revokedFrom: undefined };
    this.changed();
  }

  private async addHost(summary: PairedHostSummary): Promise<void> {
    const { hostId } = summary;
    const [connection, cached, info] = await Promise.all([
      this.client.connect(hostId),
      this.cache.state(hostId),
      this.cache.info(hostId),
    ]);
    const subscription = connection.subscribeEvents({});
    const entry: HostEntry = {
      summary,
      connection,
      cached,
      caughtUp: false,
      status: connection.status,
      restartedAt: undefined,
      pending: connection.pendingCommands,
      info,
      health: connection.hostHealth,
      older: NO_OLDER_RUNS,
      saveTimer: undefined,
      saved: undefined,
      savedAt: 0,
      stop: () => {
        subscription.close();
        unsubscribe();
      },
    };
    const unsubscribe = connection.state.subscribe(() => {
      if (entry.caughtUp) this.scheduleSave(entry);
      this.changed();
    });
    this.hosts.set(hostId, entry);
    subscription.ready.then(
      () => {
        entry.caughtUp = true;
        this.scheduleSave(entry);
        this.changed();
      },
      () => undefined,
    );
    if (connection.status.state === 'open') this.loadInfo(entry);
    // Refused before this entry existed: the status event went unheard.
    if (connection.status.state === 'stopped')
      this.connectionEvent({ type: 'status', hostId, status: connection.status });
  }

  private connectionEvent(event: ConnectionEvent): void {
    const entry = this.hosts.get(event.hostId);
    if (entry === undefined) return;
    switch (event.type) {
      case 'status':
        entry.status = event.status;
        if (event.status.state === 'open') {
          // A new connection: a host that still cannot save says so again at once.
          entry.health = entry.connection.hostHealth;
          this.loadInfo(entry);
        }
        if (event.status.state === 'stopped' && event.status.reason === 'revoked') {
          void this.forgetRevoked(event.hostId);
        }
        break;
      case 'hostRestarted':
        entry.restartedAt = Date.now();
        // The banner drops the notice by itself: render once more when it is due.
        setTimeout(() => this.changed(), RESTART_NOTICE_MS + 50);
        break;
      case 'hostStatus':
        entry.health = entry.connection.hostHealth;
        break;
      case 'outboxChanged':
        entry.pending = event.pending;
        break;
      case 'commandSettled':
      case 'subscriptionFailed':
      case 'warning':
        break;
    }
    this.changed();
  }

  private loadInfo(entry: HostEntry): void {
    const { hostId } = entry.summary;
    entry.connection.request('host.info', {}).then(
      (info) => {
        entry.info = info;
        // A `status` frame on the current connection is newer than this answer may be.
        if (entry.connection.hostHealth === undefined) {
          entry.health = healthFromInfo(info) ?? entry.health;
        }
        this.changed();
        return this.cache.saveInfo(hostId, info);
      },
      () => undefined,
    );
  }

  /**
   * Writes the state after a change: at once when a run or approval record changed (what
   * the lists show, and rare) or after a quiet while, else when {@link SAVE_DELAY_MS} have
   * passed since the last write (a throttle: a steady stream does not postpone it).
   */
  private scheduleSave(entry: HostEntry): void {
    const { saved } = entry;
    const state = entry.connection.state.state;
    const records =
      saved === undefined || saved.runs !== state.runs || saved.approvals !== state.approvals;
    const wait = entry.savedAt + SAVE_DELAY_MS - Date.now();
    if (records || wait <= 0) {
      clearTimeout(entry.saveTimer);
      this.save(entry);
      return;
    }
    entry.saveTimer ??= setTimeout(() => this.save(entry), wait);
  }

  /** Writes the state, unless only what the cache leaves out (live previews) changed. */
  private save(entry: HostEntry): void {
    entry.saveTimer = undefined;
    if (this.hosts.get(entry.summary.hostId) !== entry) return;
    const state = entry.connection.state.state;
    if (entry.saved !== undefined && sameCachedState(entry.saved, state)) return;
    entry.saved = state;
    entry.savedAt = Date.now();
    this.cache.saveState(entry.summary.hostId, state).catch(() => {
      // The cache is a convenience: the next change tries again.
    });
  }

  /** Rebuilds the view and tells the listeners, once per animation frame. */
  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = () => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.current = this.buildView();
      for (const listener of this.listeners) listener(this.current);
    };
    requestAnimationFrame(flush);
    // Hidden pages get no animation frames; changes still land.
    setTimeout(flush, 250);
  }

  private buildView(): AppView {
    const hosts = [...this.hosts.values()].map((entry): HostView => {
      const { summary, connection } = entry;
      const state = entry.caughtUp
        ? connection.state.state
        : (entry.cached ?? connection.state.state);
      return {
        hostId: summary.hostId,
        hostName: summary.hostName,
        origin: summary.origin,
        deviceId: summary.deviceId,
        connection,
        cached: entry.cached,
        state,
        live: entry.caughtUp && entry.status.state === 'open',
        status: entry.status,
        restartedAt: entry.restartedAt,
        pending: entry.pending,
        info: entry.info,
        health: entry.health,
        older: entry.older,
      };
    });
    return { ...this.current, hosts, online: this.online() };
  }
}
