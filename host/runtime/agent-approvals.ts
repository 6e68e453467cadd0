/**
 * An ACP agent's permission requests as Tether approvals (the one approval path of
 * tool-step.ts): the card shows the tool call's title, kind, locations and raw input
 * exactly as sent; allowed once, rejected once, or cancelled; a request no card can show
 * faithfully is rejected without asking. Also the run's waits for answers, heard from the
 * store's committed events, which the agent's `fs/*` calls share.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { Event } from '../../protocol/index.js';
import { oversizedCard, permissionCall, unfaithfulReason, WAITING_MAX } from '../agents/index.js';
import type { StoredToolCall } from '../store/index.js';
import type { AgentRunScope, AgentTranscript } from './agent-transcript.js';
import { recordApproval } from './tool-step.js';
import { finishToolCall, moveRun } from './transitions.js';

export class AgentApprovals {
  /** Waiters for approvals to be resolved, by approval id. */
  private readonly answers = new Map<string, (decision: string) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly scope: AgentRunScope,
    private readonly transcript: AgentTranscript,
  ) {
    this.unsubscribe = scope.deps.store.subscribe((events) => this.heard(events));
  }

  /** Stops hearing answers; every wait ends `cancelled`. */
  close(): void {
    this.unsubscribe();
    for (const answer of this.answers.values()) answer('cancelled');
  }

  /** How many answers the run waits for now. */
  waiting(): number {
    return this.answers.size;
  }

  /**
   * A `session/request_permission` of this run's session, answered. At most
   * {@link WAITING_MAX} wait at once: one more is rejected without a card.
   */
  async requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const allowOnce = params.options.find((option) => option.kind === 'allow_once');
    const rejectOnce =
      params.options.find((option) => option.kind === 'reject_once') ??
      params.options.find((option) => option.kind === 'reject_always');
    const reject = (): RequestPermissionResponse =>
      rejectOnce === undefined
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: rejectOnce.optionId } };
    const { calls } = this.transcript;
    const known = calls.get(params.toolCall.toolCallId);
    // Past a bound: refused unrecorded (too many waiting), or the run refused with it.
    if (this.waiting() >= WAITING_MAX) return reject();
    if (known === undefined && !this.transcript.roomForCall()) return reject();
    const call = permissionCall(params.toolCall, known);
    const oversized = oversizedCard(call);
    if (oversized !== null) {
      this.scope.refuse(`it asked permission for ${oversized.replace(/^the /, 'a ')}`);
      return reject();
    }
    const unfaithful = unfaithfulReason(call, allowOnce !== undefined);
    calls.set(params.toolCall.toolCallId, call);
    const stored = this.scope.guarded(() =>
      this.transcript.insertCall(params.toolCall.toolCallId, call),
    );
    if (stored === null) return { outcome: { outcome: 'cancelled' } };
    call.callId = stored.id;
    const { store } = this.scope.deps;
    if (unfaithful !== null) {
      const why = `the host refused the agent's permission request without asking: ${unfaithful}, so no card can show it faithfully`;
      store.write((tx) =>
        finishToolCall(
          store,
          stored,
          tx,
          { status: 'failed', summary: why, error: { code: 'permission_denied', message: why } },
          { modelContent: why },
        ),
      );
      return reject();
    }
    const { agentName, deps, workspace } = this.scope;
    // Where the agent runs, said on the card as a command's is: its network above all.
    const sandbox = deps.agents?.scope(agentName, workspace);
    const decision = await this.approval(
      stored,
      { kind: 'agent', agent: agentName, ...(sandbox === undefined ? {} : { sandbox }) },
      `the agent ${agentName} asks before this tool call`,
      signal,
    );
    if (decision === 'approved') {
      this.scope.guarded(() => this.transcript.started(store.tools.getToolCall(stored.id)!));
      return { outcome: { outcome: 'selected', optionId: allowOnce!.optionId } };
    }
    if (decision === 'cancelled') return { outcome: { outcome: 'cancelled' } };
    return reject();
  }

  /**
   * Records an approval of `call` and waits for its answer; the run goes back to running
   * once no other call waits. Returns how it was resolved.
   */
  private async approval(
    call: StoredToolCall,
    preview: Parameters<typeof recordApproval>[2],
    reason: string,
    signal: AbortSignal,
  ): Promise<string> {
    const { store, limits } = this.scope.deps;
    let approvalId: string | undefined;
    const recorded = this.scope.guarded(() => {
      recordApproval({ store, workspace: this.scope.workspace, limits }, call, preview, reason);
      approvalId = this.pendingApprovalOf(call.id);
      return true;
    });
    if (recorded === null || approvalId === undefined) return 'cancelled';
    return this.awaitAnswer(approvalId, signal);
  }

  /** The id of the pending approval of the call `callId`, if it has one. */
  pendingApprovalOf(callId: string): string | undefined {
    return this.scope.deps.store.tools
      .listApprovals({ runId: this.scope.runId, state: 'pending' })
      .find((candidate) => candidate.toolCallId === callId)?.id;
  }

  /** Waits until the approval is resolved (by anyone, by expiry, by a cancel). */
  awaitAnswer(approvalId: string, signal: AbortSignal): Promise<string> {
    const { store } = this.scope.deps;
    const runSignal = this.scope.signal;
    return new Promise<string>((resolve) => {
      const done = (decision: string) => {
        this.answers.delete(approvalId);
        signal.removeEventListener('abort', onAbort);
        runSignal.removeEventListener('abort', onAbort);
        if (decision !== 'cancelled') this.scope.guarded(() => this.resumeRun());
        resolve(decision);
      };
      const onAbort = () => done('cancelled');
      this.answers.set(approvalId, done);
      signal.addEventListener('abort', onAbort, { once: true });
      runSignal.addEventListener('abort', onAbort, { once: true });
      // It may have been answered already.
      const approval = store.tools.getApproval(approvalId);
      if (approval !== undefined && approval.state !== 'pending') done(approval.state);
      if (runSignal.aborted) done('cancelled');
    });
  }

  /** Hears committed events: the answer to an approval this run waits for. */
  private heard(events: readonly Event[]): void {
    for (const event of events) {
      if (event.type !== 'tool.approval_resolved' || event.runId !== this.scope.runId) continue;
      const answer = this.answers.get(event.payload.approvalId);
      const approval = this.scope.deps.store.tools.getApproval(event.payload.approvalId);
      if (answer !== undefined && approval !== undefined) answer(approval.state);
    }
  }

  /** The run back to running from waiting for approval, once no call of it waits. */
  private resumeRun(): boolean {
    const { store } = this.scope.deps;
    const run = this.scope.run();
    if (run.state !== 'waiting_for_approval') return true;
    if (store.tools.listToolCallsInState(run.id, ['waiting_for_approval']).length > 0) return true;
    store.write((tx) => moveRun(store, run, 'running', tx));
    return true;
  }
}
