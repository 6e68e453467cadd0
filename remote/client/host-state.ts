/**
 * What a remote knows about one host: records from snapshots and events, plus the live
 * (not durable) streaming text and output tails. Immutable: each change makes a new object.
 */
import type {
  Approval,
  Artifact,
  Device,
  Event,
  Message,
  Run,
  Session,
  ToolCall,
} from '../../protocol/index.js';

/** The assistant text streaming now for a run. Not durable: never history. */
export interface Preview {
  messageId: string;
  text: string;
  reasoning: string;
}

/** The tail of a running tool's output. Not durable; `output.read` has the whole output. */
export interface OutputTail {
  /** The offset of `text`'s first character in the output. */
  offset: number;
  text: string;
}

type ById<T> = Readonly<Record<string, T>>;

/** One host as this remote knows it; collections by id. */
export interface HostState {
  readonly sessions: ById<Session>;
  readonly runs: ById<Run>;
  readonly toolCalls: ById<ToolCall>;
  /** Every approval seen, pending or resolved; see {@link pendingApprovals}. */
  readonly approvals: ById<Approval>;
  /** Completed assistant messages by runId, oldest first. */
  readonly messages: ById<readonly Message[]>;
  /** Artifacts by runId, oldest first. */
  readonly artifacts: ById<readonly Artifact[]>;
  readonly devices: ById<Device>;
  /** By runId. */
  readonly previews: ById<Preview>;
  /** By toolCallId, while the tool runs. */
  readonly outputs: ById<OutputTail>;
  /** The durable events seen for each run, by runId, in seq order, each once. */
  readonly timelines: ById<readonly Event[]>;
}

/** The state before any snapshot or event. */
export const EMPTY_HOST_STATE: HostState = {
  sessions: {},
  runs: {},
  toolCalls: {},
  approvals: {},
  messages: {},
  artifacts: {},
  devices: {},
  previews: {},
  outputs: {},
  timelines: {},
};

/** Approvals waiting for an answer, the soonest to expire first. */
export function pendingApprovals(state: HostState): Approval[] {
  return Object.values(state.approvals)
    .filter((approval) => approval.state === 'pending')
    .sort((a, b) => a.expiresAt - b.expiresAt);
}

/** A run's tool calls, in the order they started (proposed ones last). */
export function toolCallsOf(state: HostState, runId: string): ToolCall[] {
  return Object.values(state.toolCalls)
    .filter((call) => call.runId === runId)
    .sort((a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity));
}
