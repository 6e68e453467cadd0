/**
 * The app's model: the client core's hosts, connections and states, plus what the UI
 * adds (the cached last state per host, `host.info`, the outbox, the revoked notice).
 * Views read one immutable {@link AppView}; changes reach them at most once an animation
 * frame, so streaming text re-renders in step with the screen, not with the network.
 * This file holds the hosts (pairing, forgetting, the network); each host's entry and
 * view are in host-entry.ts, the cache writes in state-saver.ts, older runs in
 * older-runs.ts.
 */
import {
  type ConnectionEvent,
  type PairedHostSummary,
  type PairResult,
  TetherClient,
  type ClientStorage,
  type WebSocketFactory,
} from '#client';
import { RESTART_NOTICE_MS } from '../logic/connection-view.js';
import { healthFromInfo } from '../logic/host-health.js';
import { hostLabels } from '../logic/host-labels.js';
import type { AppView } from './app-view.js';
import { HostCache } from './host-cache.js';
import { type HostEntry, hostView } from './host-entry.js';
import { NO_OLDER_RUNS, withNextPage } from './older-runs.js';
import { saveState, scheduleSave } from './state-saver.js';
import { keepsUploadJobs } from './upload-jobs-key.js';

/** The app's hosts and what the UI knows of them. */
export class AppModel {
  private readonly client: TetherClient;
  private readonly cache: HostCache;
  private readonly hosts = new Map<string, HostEntry>();
  private readonly listeners = new Set<(view: AppView) => void>();
  private current: AppView = {
    loaded: false,
    hosts: [],
    online: true,
    revokedFrom: undefined,
    refusedTasks: 0,
  };
  private scheduled = false;
  /** Hosts being added (addHost), by hostId. */
  private readonly adding = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: ClientStorage,
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
    // The view holds every paired host once start resolves (a change lands only at the
    // next frame): what runs next reads it, as the kept tasks' check of their hosts does.
    this.current = { ...this.buildView(), loaded: true };
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
   * The user asked to try `hostId` now ("Retry now"): its backoff wait is cut short. The
   * backoff still grows with each failure, so a host that stays down is not hammered.
   */
  retryNow(hostId: string): void {
    this.hosts.get(hostId)?.connection.retryNow();
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
      saveState(entry, this.cache, this.hosts);
    }
  }

  /** Pages in the next older runs of `hostId` (once at a time; nothing when all are in). */
  async loadOlderRuns(hostId: string): Promise<void> {
    const entry = this.hosts.get(hostId);
    if (entry === undefined || entry.older.loading || entry.older.done) return;
    entry.older = { ...entry.older, loading: true, error: undefined };
    this.changed();
    entry.older = await withNextPage(entry.connection, entry.older);
    this.changed();
  }

  /** Pairs with the host of `link`, then connects to it. */
  async pair(link: string, device: { name: string; platform: string }): Promise<PairResult> {
    const result = await this.client.pair(link, device);
    const summary = (await this.client.pairedHosts()).find((h) => h.hostId === result.hostId);
    if (summary !== undefined) await this.addHost(summary);
    this.current = { ...this.current, revokedFrom: undefined };
    this.changed();
    return result;
  }

  /**
   * Forgets a host: its record, outbox, cached state, connection and the tasks kept with
   * their files for it (the user's "Forget this host", or this device revoked). Commands
   * still waiting to send to it are dropped.
   */
  async forget(hostId: string): Promise<void> {
    const entry = this.hosts.get(hostId);
    if (entry === undefined) return;
    this.hosts.delete(hostId);
    entry.stop();
    if (entry.saveTimer !== undefined) clearTimeout(entry.saveTimer);
    await this.client.forget(hostId);
    await this.cache.forget(hostId);
    this.changed();
    // Its tasks kept with their files: gone with it (their own chunk, loaded only if any).
    if (await keepsUploadJobs(this.storage)) {
      await (await import('./upload-jobs.js')).forgetHostJobs(hostId, this);
    }
  }

  /** How many tasks refused by a host this device keeps (state/upload-jobs.ts). */
  setRefusedTasks(count: number): void {
    this.current = { ...this.current, refusedTasks: count };
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

  /**
   * Adds a paired host and connects to it, once: start (reading the paired hosts) and a
   * pairing that just stored the same host may both ask while either is still on its way,
   * and a second entry would subscribe to the host again and leave the first one's
   * listeners running.
   */
  private addHost(summary: PairedHostSummary): Promise<void> {
    const { hostId } = summary;
    if (this.hosts.has(hostId)) return Promise.resolve();
    let adding = this.adding.get(hostId);
    if (adding === undefined) {
      adding = this.connectHost(summary).finally(() => this.adding.delete(hostId));
      this.adding.set(hostId, adding);
    }
    return adding;
  }

  private async connectHost(summary: PairedHostSummary): Promise<void> {
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
      if (entry.caughtUp) scheduleSave(entry, this.cache, this.hosts);
      this.changed();
    });
    this.hosts.set(hostId, entry);
    subscription.ready.then(
      () => {
        entry.caughtUp = true;
        scheduleSave(entry, this.cache, this.hosts);
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
    const entries = [...this.hosts.values()];
    const labels = hostLabels(entries.map((entry) => entry.summary));
    const hosts = entries.map((entry) =>
      hostView(entry, labels.get(entry.summary.hostId) ?? entry.summary.hostName),
    );
    return { ...this.current, hosts, online: this.online() };
  }
}
