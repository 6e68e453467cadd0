/**
 * The runtime: the API the server (and the CLI, and tests) drive. It owns the scheduler,
 * the executors and the live stream; every fact goes through the store.
 */
import type {
  AgentInfo,
  IntegrateResult,
  McpServerInfo,
  OpArgs,
  OpResult,
  RunChanges,
  RunGetResult,
  RunReview,
} from '../../protocol/index.js';
import { faultPoint } from '../faults/index.js';
import {
  isPersistenceFailed,
  newId,
  type CommitListener,
  type HistoryState,
  type PersistenceListener,
  type PersistenceState,
  type Store,
} from '../store/index.js';
import { readOnlyTools } from '../tools/index.js';
import { attachmentStatus, putAttachmentChunk } from './attachment-commands.js';
import { readAttachmentChunk } from './attachment-read.js';
import { respondToApproval } from './approval-commands.js';
import { ApprovalExpiry } from './approval-expiry.js';
import { DeviceDirectory } from './device-directory.js';
import { LiveHub } from './live-hub.js';
import { OrphanGroups } from './orphan-groups.js';
import { OutputFiles } from './output-files.js';
import { PairingLedger } from './pairing-ledger.js';
import { PushSubscriptions } from './push-subscriptions.js';
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
import { pruneRetained } from './retention.js';
import { UploadSweep } from './upload-sweep.js';
import { RunScheduler } from './run-scheduler.js';
import { VoiceTranscription } from './voice-transcription.js';
import { WorktreeRuns } from './worktree-runs.js';
import { openSubscription, type Subscription } from './subscriptions.js';
import { defaultPolicy, toolTable } from './tool-table.js';
import {
  DEFAULT_LIMITS,
  type Actor,
  type AgentLauncher,
  type LiveListener,
  type RuntimeLimits,
  type RuntimeModel,
  type RuntimeOptions,
  type ToolServers,
  type WorkspaceRef,
} from './types.js';

export class Runtime {
  /** Changes at every start: a remote seeing a new one knows the host restarted. */
  readonly instance = newId('ins');
  readonly limits: RuntimeLimits;
  readonly workspaces: readonly WorkspaceRef[];
  readonly model: RuntimeModel | null;
  /** The paired devices: listed, found, renamed, revoked, seen. */
  readonly devices: DeviceDirectory;
  /** Pairing offers and the devices that completed them. */
  readonly pairing: PairingLedger;
  /** The devices' push subscriptions and the key they subscribe with. */
  readonly pushes: PushSubscriptions;
  /** Where full outputs and artifacts live on disk (download links). */
  readonly outputs: OutputFiles;
  /** Recordings made text by the transcription endpoint (`voice.transcribe`). */
  readonly voice: VoiceTranscription;
  private readonly live = new LiveHub((runId) => this.store.runs.getRun(runId)?.sessionId ?? null);
  private readonly queries: RunQueries;
  private readonly scheduler: RunScheduler;
  private readonly commands: CommandContext;
  private readonly rules: RuleContext;
  private readonly worktrees: WorktreeRuns;
  private started = false;
  private readonly expiry: ApprovalExpiry;
  private readonly uploads: UploadSweep;
  private readonly orphans: OrphanGroups;
  private readonly health: PersistenceHealth;
  private readonly push: RuntimeOptions['push'];
  private readonly toolServers: ToolServers | undefined;
  private readonly agentLauncher: AgentLauncher | undefined;

  constructor(
    private readonly store: Store,
    options: RuntimeOptions,
    private readonly reportError: (error: unknown) => void = (error) => console.error(error),
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.workspaces = options.workspaces;
    this.model = options.model;
    this.toolServers = options.toolServers;
    this.agentLauncher = options.agents;
    const tools = toolTable(options.tools ?? readOnlyTools, options.toolServers);
    const policy = options.policy ?? defaultPolicy;
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
        agents: options.agents ?? null,
      },
      reportError,
    );
    this.push = options.push;
    this.devices = new DeviceDirectory(store);
    this.pairing = new PairingLedger(store);
    this.pushes = new PushSubscriptions(store, options.push);
    this.outputs = new OutputFiles(store);
    this.voice = new VoiceTranscription(store, options.transcriber ?? null);
    this.expiry = new ApprovalExpiry(store, this.scheduler, reportError);
    this.uploads = new UploadSweep(store, reportError);
    this.orphans = new OrphanGroups(store, options.killProcessGroup, reportError);
    this.commands = {
      store,
      model: options.model,
      workspaces: options.workspaces,
      worktreesDir: options.worktreesDir ?? null,
      limits: this.limits,
      agents: options.agents ?? null,
    };
    this.health = new PersistenceHealth(store, this.scheduler, {
      reopened: () => {
        this.orphans.killAll();
        this.expiry.expireDue();
      },
      reportError,
    });
  }

  /** Recovers what a previous host left, records `host.started`, and starts queued runs. */
  start(): RecoveryReport {
    if (this.started) throw new Error('the runtime is already started');
    this.started = true;
    pruneRetained(this.store, Date.now());
    this.uploads.start();
    const report = recover(this.store, this.instance);
    // Git work, in the background: a run of a session it settles waits for it.
    this.worktrees.recover().catch(this.reportError);
    this.orphans.killAll();
    this.health.start();
    this.expiry.expireDue();
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
    this.expiry.stop();
    this.uploads.stop();
    this.voice.stop();
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

  /**
   * The host's ACP agents, their state and what the sandbox holds of them in the default
   * workspace (`host.info.agents`); null with none.
   */
  get agents(): AgentInfo[] | null {
    const workspace = this.workspaces[0];
    return workspace === undefined ? null : (this.agentLauncher?.list(workspace.path) ?? null);
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

  /** Where `by`'s upload stands, for a remote resuming it. */
  attachmentStatus(attachmentId: string, by: Actor): OpResult<'attachment.status'> {
    return attachmentStatus(this.store, attachmentId, by);
  }

  /** One chunk of an attachment a run was given, or `by` sent (docs/attachments.md). */
  readAttachment(args: OpArgs<'attachment.read'>, by: Actor): OpResult<'attachment.read'> {
    return readAttachmentChunk(this.store, args, by);
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
    this.expiry.expireDue();
    const result = respondToApproval(this.store, args, by);
    this.wakeRunOf(args.approvalId);
    this.expiry.schedule();
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
    this.expiry.expireDue();
    const result = await addRule(this.rules, args, by);
    this.wakeRunOf(args.approvalId);
    this.expiry.schedule();
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

  /** Hears every commit's events, in seq order, once they are durable. */
  onCommit(listener: CommitListener): () => void {
    return this.store.subscribe(listener);
  }

  /** Grows whenever a run is created or changes state: unchanged, no run's state changed. */
  get runStateChanges(): number {
    return this.store.runs.stateChanges;
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

  /** Resolves when no run is executing (tests and shutdown). */
  whenIdle(): Promise<void> {
    return this.scheduler.idle();
  }
}
