/**
 * The runtime: the API the server (and the CLI, and tests) drive. It owns the scheduler,
 * the executors and the live stream; every fact goes through the store.
 */
import { uptime } from 'node:os';
import type {
  IntegrateResult,
  McpServerInfo,
  OpArgs,
  OpResult,
  RunChanges,
  RunGetResult,
  RunReview,
} from '../../protocol/index.js';
import type { PairedDevice, PairOffer } from '../../pairing/index.js';
import { faultPoint } from '../faults/index.js';
import {
  isPersistenceFailed,
  newId,
  type CommitListener,
  type HistoryState,
  type PersistenceListener,
  type PersistenceState,
  type Store,
  type StoredArtifact,
  type StoredDevice,
  type StoredOffer,
  type StoredToolCall,
} from '../store/index.js';
import { readOnlyTools, type ToolDefinition } from '../tools/index.js';
import { attachmentStatus, putAttachmentChunk } from './attachment-commands.js';
import { expireApprovals, nextExpiry, respondToApproval } from './approval-commands.js';
import { listDevices, recordPairedDevice, renameDevice, revokeDevice } from './device-commands.js';
import { LiveHub } from './live-hub.js';
import { subscribePush, testPush, unsubscribePush } from './push-commands.js';
import { PersistenceHealth } from './persistence-health.js';
import { recover, type RecoveryReport } from './recovery.js';
import {
  cancelRun,
  continueRun,
  reconcileToolCall,
  settleCancelledRun,
  submitRun,
  type CommandContext,
} from './run-commands.js';
import { addRule, listRules, removeRule, type RuleContext } from './rule-commands.js';
import { RunQueries } from './run-queries.js';
import { RunScheduler } from './run-scheduler.js';
import { WorktreeRuns } from './worktree-runs.js';
import { openSubscription, type Subscription } from './subscriptions.js';
import {
  DEFAULT_LIMITS,
  type Actor,
  type LiveListener,
  type RuntimeLimits,
  type RuntimeModel,
  type RuntimeOptions,
  type PolicyFn,
  type ToolServers,
  type ToolTable,
  type WorkspaceRef,
} from './types.js';

const COMMAND_RETENTION_MS = 31 * 24 * 60 * 60 * 1000;
const OFFER_RETENTION_MS = 24 * 60 * 60 * 1000;
/** An attachment no run was given is kept this long (an unfinished upload, an unsent task). */
const UNUSED_ATTACHMENT_MS = 24 * 60 * 60 * 1000;

/** Without a policy: tools that only read are allowed, everything else asks. */
function defaultPolicy(): PolicyFn {
  return (call) => {
    return Promise.resolve(
      call.access.kind === 'read'
        ? { decision: 'allow', reason: 'reading inside the workspace is allowed' }
        : { decision: 'ask', reason: `${call.name} changes things: it asks first` },
    );
  };
}

export class Runtime {
  /** Changes at every start: a remote seeing a new one knows the host restarted. */
  readonly instance = newId('ins');
  readonly limits: RuntimeLimits;
  readonly workspaces: readonly WorkspaceRef[];
  readonly model: RuntimeModel | null;
  private readonly live = new LiveHub();
  private readonly queries: RunQueries;
  private readonly scheduler: RunScheduler;
  private readonly commands: CommandContext;
  private readonly rules: RuleContext;
  private readonly worktrees: WorktreeRuns;
  private started = false;
  private expiryTimer: NodeJS.Timeout | null = null;
  private readonly killProcessGroup: ((pgid: number) => Promise<unknown>) | undefined;
  private readonly health: PersistenceHealth;
  private readonly push: RuntimeOptions['push'];
  private readonly toolServers: ToolServers | undefined;
  /** Tool calls whose orphaned group is being killed now. */
  private readonly killing = new Set<string>();

  constructor(
    private readonly store: Store,
    options: RuntimeOptions,
    private readonly reportError: (error: unknown) => void = (error) => console.error(error),
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.workspaces = options.workspaces;
    this.model = options.model;
    const builtIn = new Map<string, ToolDefinition<unknown>>();
    for (const tool of options.tools ?? readOnlyTools) builtIn.set(tool.name, tool);
    const servers = options.toolServers;
    this.toolServers = servers;
    const tools: ToolTable =
      servers === undefined
        ? builtIn
        : {
            get: (name) => builtIn.get(name) ?? servers.get(name),
            values: () => [...builtIn.values(), ...servers.offeredTools()],
          };
    const policy = options.policy ?? defaultPolicy();
    this.rules = { store, policy, tools, configRules: options.configAllowRules ?? [] };
    this.queries = new RunQueries(store, this.live, tools, options.prices);
    this.worktrees = new WorktreeRuns(store, reportError);
    this.scheduler = new RunScheduler(
      {
        store,
        live: this.live,
        model: options.model,
        tools,
        policy,
        limits: this.limits,
        worktrees: this.worktrees,
      },
      reportError,
    );
    this.killProcessGroup = options.killProcessGroup;
    this.push = options.push;
    this.commands = {
      store,
      model: options.model,
      workspaces: options.workspaces,
      worktreesDir: options.worktreesDir ?? null,
      limits: this.limits,
    };
    this.health = new PersistenceHealth(store, this.scheduler, {
      reopened: () => {
        this.killOrphans();
        this.expireDueApprovals();
      },
      reportError,
    });
  }

  /** Recovers what a previous host left, records `host.started`, and starts queued runs. */
  start(): RecoveryReport {
    if (this.started) throw new Error('the runtime is already started');
    this.started = true;
    const now = Date.now();
    // Commands are kept at least 30 days for deduplication (docs/protocol.md §6.1); used or
    // expired pairing offers only as long as the admin page may ask about them.
    this.store.write(() => {
      this.store.commands.pruneBefore(now - COMMAND_RETENTION_MS);
      this.store.offers.pruneExpired(now - OFFER_RETENTION_MS);
      for (const id of this.store.attachments.listUnused(now - UNUSED_ATTACHMENT_MS)) {
        this.store.attachments.discard(id);
      }
    });
    const report = recover(this.store, this.instance);
    // Git work, in the background: a run of a session it settles waits for it.
    this.worktrees.recover().catch(this.reportError);
    this.killOrphans();
    this.health.start();
    this.expireDueApprovals();
    this.scheduler.kick();
    // After recovery, so runs it marked interrupted are pushed too.
    this.push?.start();
    return report;
  }

  /**
   * Graceful stop: no new runs start, active runs are cancelled (recorded as such), and
   * after at most `timeoutMs` `host.stopping` is recorded. Runs that did not end in time
   * are left for recovery at the next start to mark `interrupted`.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.health.close();
    // While commits fail nothing can be recorded: runs stay as last committed, and
    // recovery at the next start settles them.
    const recorded = <T>(write: () => T): void => {
      try {
        write();
      } catch (error) {
        if (!isPersistenceFailed(error)) throw error;
      }
    };
    const active = this.store.runs.listRuns({ states: ['running'], limit: 1000 });
    for (const run of active) {
      if (this.scheduler.executor(run.id) === undefined) continue;
      const commandId = `shutdown-${this.instance}-${run.id}`;
      recorded(() => this.cancel({ commandId, runId: run.id }, 'host'));
    }
    if (this.expiryTimer !== null) clearTimeout(this.expiryTimer);
    await this.scheduler.drain(timeoutMs);
    recorded(() =>
      this.store.write((tx) =>
        tx.append({ type: 'host.stopping', payload: { instance: this.instance } }),
      ),
    );
    await this.push?.stop();
  }

  /** The host's MCP servers and their state (`host.info.mcpServers`); null with none. */
  get mcpServers(): McpServerInfo[] | null {
    return this.toolServers?.servers() ?? null;
  }

  /** The VAPID public key remotes subscribe with; null when this host sends no pushes. */
  get vapidPublicKey(): string | null {
    return this.push?.vapidPublicKey ?? null;
  }

  /** Replaces the asking device's push subscription (`invalid_request` for an endpoint not allowed). */
  subscribePush(args: OpArgs<'push.subscribe'>, by: Actor): OpResult<'push.subscribe'> {
    return subscribePush(this.store, this.push, args, by);
  }

  /** Drops the asking device's push subscription and its pending pushes. */
  unsubscribePush(args: OpArgs<'push.unsubscribe'>, by: Actor): OpResult<'push.unsubscribe'> {
    return unsubscribePush(this.store, args, by);
  }

  /** Sends a test push to the asking device now; resolves with how it went. */
  testPush(args: OpArgs<'push.test'>, by: Actor): Promise<OpResult<'push.test'>> {
    return testPush(this.store, this.push, args, by);
  }

  /** Whether the store can commit now (`host.info.persistence`). */
  get persistence(): PersistenceState {
    return this.store.persistence;
  }

  /** Whether the database went back in time, until acknowledged (`host.info.history`). */
  get history(): HistoryState {
    return this.store.history.state;
  }

  /** Acknowledges the rewinds `history` shows (`tether history --acknowledge`); how many. */
  acknowledgeHistory(): number {
    return this.store.history.acknowledge();
  }

  /** Hears each change of {@link persistence}: one call per transition. */
  onPersistence(listener: PersistenceListener): () => void {
    return this.store.onPersistence(listener);
  }

  submit(args: OpArgs<'run.submit'>, by: Actor): OpResult<'run.submit'> {
    const result = submitRun(this.commands, args, by);
    faultPoint('command-committed');
    if (!result.deduplicated) this.scheduler.kick();
    return result;
  }

  cancel(args: OpArgs<'run.cancel'>, by: Actor): OpResult<'run.cancel'> {
    const result = cancelRun(this.commands, args, by);
    if (result.state === 'cancelling') {
      const executor = this.scheduler.executor(args.runId);
      if (executor === undefined) {
        settleCancelledRun(this.store, args.runId);
        const sessionId = this.store.runs.getRun(args.runId)?.sessionId;
        if (sessionId !== undefined) this.worktrees.settle(sessionId).catch(this.reportError);
      } else executor.stop('cancel');
    }
    this.scheduler.kick();
    return result;
  }

  /** Stores one chunk of an attachment, once (docs/attachments.md). */
  putAttachment(args: OpArgs<'attachment.put'>, by: Actor): OpResult<'attachment.put'> {
    return putAttachmentChunk(this.store, this.limits, args, by);
  }

  /** Where an upload stands, for a remote resuming it. */
  attachmentStatus(attachmentId: string): OpResult<'attachment.status'> {
    return attachmentStatus(this.store, attachmentId);
  }

  continueRun(args: OpArgs<'run.continue'>, by: Actor): OpResult<'run.continue'> {
    const result = continueRun(this.commands, args, by);
    this.scheduler.kick();
    return result;
  }

  /** The answer to a worktree run's review: merge, keep or discard (docs/worktrees.md). */
  integrate(args: OpArgs<'run.integrate'>, by: Actor): Promise<IntegrateResult> {
    return this.worktrees.integrate(args, by);
  }

  /** A worktree run's branch against its base, with its diffs. */
  review(runId: string): Promise<RunReview> {
    return this.worktrees.review(runId);
  }

  /** Answers an approval; an approved or denied call lets its parked run resume. */
  respondApproval(args: OpArgs<'approval.respond'>, by: Actor): OpResult<'approval.respond'> {
    this.expireDueApprovals();
    const result = respondToApproval(this.store, args, by);
    this.wakeRunOf(args.approvalId);
    this.scheduleExpiry();
    return result;
  }

  /** Every allow rule: the config file's, then those added from remotes. */
  listRules(): OpResult<'policy.rules'> {
    return listRules(this.rules);
  }

  /**
   * Adds the rule a pending approval's card offered and approves that call (checked again
   * now); its run resumes.
   */
  async addRule(args: OpArgs<'policy.rule_add'>, by: Actor): Promise<OpResult<'policy.rule_add'>> {
    this.expireDueApprovals();
    const result = await addRule(this.rules, args, by);
    this.wakeRunOf(args.approvalId);
    this.scheduleExpiry();
    return result;
  }

  /** Removes a rule added from a remote; calls not run yet are decided again without it. */
  removeRule(args: OpArgs<'policy.rule_remove'>, by: Actor): OpResult<'policy.rule_remove'> {
    return removeRule(this.store, args, by);
  }

  reconcile(args: OpArgs<'toolcall.reconcile'>, by: Actor): OpResult<'toolcall.reconcile'> {
    return reconcileToolCall(this.commands, args, by);
  }

  getRun(runId: string): RunGetResult {
    return this.queries.getRun(runId);
  }

  listRuns(args: OpArgs<'runs.list'>): OpResult<'runs.list'> {
    return this.queries.listRuns(args);
  }

  runChanges(runId: string): RunChanges {
    return this.queries.changes(runId);
  }

  runUsage(runId: string): OpResult<'run.usage'> {
    return this.queries.usage(runId);
  }

  listSessions(args: OpArgs<'sessions.list'>): OpResult<'sessions.list'> {
    return this.queries.listSessions(args);
  }

  readOutput(args: OpArgs<'output.read'>): OpResult<'output.read'> {
    return this.queries.readOutput(args);
  }

  readArtifact(args: OpArgs<'artifact.read'>): OpResult<'artifact.read'> {
    return this.queries.readArtifact(args);
  }

  /**
   * Subscribes to committed events after `afterSeq` in `scope` (docs/protocol.md §6.3). `by` is
   * the device asking, marked `current` in the snapshot's devices.
   */
  subscribe(args: OpArgs<'subscribe'>, by: Actor): Subscription {
    const scope = args.scope ?? {};
    return openSubscription(
      this.store,
      {
        ...(args.afterSeq === undefined ? {} : { afterSeq: args.afterSeq }),
        scope,
        deviceId: by,
      },
      () => {
        if ('runId' in scope) return this.queries.getRun(scope.runId);
        if ('sessionId' in scope) return this.queries.sessionOverview(scope.sessionId);
        return this.queries.overview(by);
      },
    );
  }

  listDevices(by: Actor): OpResult<'devices.list'> {
    return listDevices(this.store, by);
  }

  /** Records the revocation; the server then closes the device's sockets. */
  revokeDevice(args: OpArgs<'device.revoke'>, by: Actor): OpResult<'device.revoke'> {
    return revokeDevice(this.store, args, by);
  }

  /** Renames a device; `by` is the device asking, or `"admin"`. */
  renameDevice(args: OpArgs<'device.rename'>, by: Actor): OpResult<'device.rename'> {
    return renameDevice(this.store, args, by);
  }

  /** Stores a device that completed pairing; false when its offer was used meanwhile. */
  recordPairedDevice(offerId: string, device: PairedDevice, sas: string): boolean {
    return recordPairedDevice(this.store, offerId, device, sas);
  }

  /** Hears every commit's events, in seq order, once they are durable. */
  onCommit(listener: CommitListener): () => void {
    return this.store.subscribe(listener);
  }

  /** Grows whenever a run is created or changes state: unchanged, no run's state changed. */
  get runStateChanges(): number {
    return this.store.runs.stateChanges;
  }

  /** The session `runId` belongs to; null for a run this host does not know. */
  sessionOfRun(runId: string): string | null {
    return this.store.runs.getRun(runId)?.sessionId ?? null;
  }

  /** A paired device, revoked or not; undefined for one this host never paired. */
  findDevice(deviceId: string): StoredDevice | undefined {
    return this.store.devices.get(deviceId);
  }

  /**
   * Records that `deviceId` was seen now: at once for readers, on disk within seconds
   * (Store.noteDeviceSeen), never waiting on the disk.
   */
  recordDeviceSeen(deviceId: string): void {
    this.store.noteDeviceSeen(deviceId);
  }

  /** Stores a new pairing offer (the admin page's QR code) until it is used or expires. */
  recordPairOffer(offer: PairOffer): void {
    this.store.write((tx) => this.store.offers.insert(offer, tx.at));
  }

  /** A pairing offer with what became of it; undefined once pruned or never made. */
  findPairOffer(offerId: string): StoredOffer | undefined {
    return this.store.offers.get(offerId);
  }

  /**
   * Ends a pending pairing offer now (`tether pair` stopped by Ctrl-C): its link no longer
   * pairs. False when the offer was used already or had ended.
   */
  endPairOffer(offerId: string): boolean {
    return this.store.write((tx) => this.store.offers.end(offerId, tx.at));
  }

  /** Counts a failed pairing attempt on an offer (enough of them void it). */
  countFailedPairing(offerId: string): void {
    this.store.write(() => this.store.offers.countFailure(offerId));
  }

  /** A tool call with where its full output lives (download links). */
  findToolCall(toolCallId: string): StoredToolCall | undefined {
    return this.store.tools.getToolCall(toolCallId);
  }

  /** An artifact with where it lives on disk (download links). */
  findArtifact(artifactId: string): StoredArtifact | undefined {
    return this.store.tools.getArtifact(artifactId);
  }

  /** Hears previews and output tails: not durable, never history. */
  onLive(listener: LiveListener): () => void {
    return this.live.listen(listener);
  }

  /** Hands the scheduler the run an answered approval belongs to: it resumes if it may. */
  private wakeRunOf(approvalId: string): void {
    const runId = this.store.tools.getApproval(approvalId)?.runId;
    if (runId === undefined) this.scheduler.kick();
    else this.scheduler.wake(runId);
  }

  /** Resolves approvals past their expiry, resumes their runs, and arms the next check. */
  expireDueApprovals(): void {
    if (expireApprovals(this.store, Date.now()) > 0) this.scheduler.wakeAllParked();
    this.scheduleExpiry();
  }

  /**
   * Kills the process groups nobody owns any more (`store.orphanGroups`), each forgotten
   * once the kill is done. A group that started before the machine last booted died with
   * it; its number may now belong to someone else, so it is forgotten without a signal.
   */
  private killOrphans(): void {
    const bootedAt = Date.now() - uptime() * 1000;
    const kill = this.killProcessGroup;
    for (const group of this.store.orphanGroups.list()) {
      if (this.killing.has(group.toolCallId)) continue;
      if (kill === undefined || group.startedAt === null || group.startedAt < bootedAt) {
        this.forgetOrphan(group.toolCallId);
        continue;
      }
      this.killing.add(group.toolCallId);
      kill(group.pgid)
        .catch((error: unknown) => this.reportError(error))
        .finally(() => {
          this.killing.delete(group.toolCallId);
          this.forgetOrphan(group.toolCallId);
        });
    }
  }

  private forgetOrphan(toolCallId: string): void {
    try {
      this.store.write(() => this.store.orphanGroups.remove(toolCallId));
    } catch (error) {
      // Commits fail: the group stays recorded and is tried again once they work.
      if (!isPersistenceFailed(error)) this.reportError(error);
    }
  }

  private scheduleExpiry(): void {
    if (this.expiryTimer !== null) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    const next = nextExpiry(this.store);
    if (next === null) return;
    // At most a minute ahead, so a clock change or a long sleep cannot stretch the wait.
    const delay = Math.min(Math.max(next - Date.now(), 0) + 10, 60_000);
    this.expiryTimer = setTimeout(() => {
      try {
        this.expireDueApprovals();
      } catch (error) {
        // Commits fail: the store said so; expiry runs again once they work.
        if (!isPersistenceFailed(error)) this.reportError(error);
      }
    }, delay);
    this.expiryTimer.unref();
  }

  /** Resolves when no run is executing (tests and shutdown). */
  whenIdle(): Promise<void> {
    return this.scheduler.idle();
  }
}
