/**
 * Stored rows → protocol records: what leaves the host carries no host-only fields.
 */
import type {
  Artifact,
  Device,
  DevicePush,
  Message,
  Run,
  ToolAccessKind,
  ToolCall,
} from '../../protocol/index.js';
import type {
  StoredArtifact,
  StoredDevice,
  StoredMessage,
  StoredRun,
  StoredSummary,
  StoredToolCall,
} from '../store/index.js';

export function runRecord(run: StoredRun): Run {
  return {
    id: run.id,
    sessionId: run.sessionId,
    state: run.state,
    input: run.input,
    model: run.model,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    continuesRunId: run.continuesRunId,
    error: run.error,
    // The ACP agent that works the run (docs/agents.md); absent: the host's own loop.
    ...(run.agent === undefined ? {} : { agent: run.agent }),
  };
}

/** A summary as `run.get` sends it (docs/protocol.md §6.4). */
export function summaryRecord(
  summary: StoredSummary,
): Omit<StoredSummary, 'throughRunId' | 'usage'> {
  return {
    id: summary.id,
    sessionId: summary.sessionId,
    runId: summary.runId,
    coversSeq: summary.coversSeq,
    summary: summary.summary,
    tokensBefore: summary.tokensBefore,
    tokensAfter: summary.tokensAfter,
    model: summary.model,
    createdAt: summary.createdAt,
  };
}

/** A stored call as the wire has it, with what its tool declares it touches, when known. */
export function toolCallRecord(call: StoredToolCall, access: ToolAccessKind | undefined): ToolCall {
  return {
    id: call.id,
    runId: call.runId,
    name: call.name,
    input: call.input,
    ...(access === undefined ? {} : { access }),
    inputDigest: call.inputDigest,
    state: call.state,
    startedAt: call.startedAt,
    finishedAt: call.finishedAt,
    result: call.result,
    ...(call.allowedBy === undefined ? {} : { allowedBy: call.allowedBy }),
  };
}

export function messageRecord(message: StoredMessage): Message {
  return {
    id: message.id,
    runId: message.runId,
    text: message.text,
    reasoning: message.reasoning,
    finishReason: message.finishReason,
    usage: message.usage,
    createdAt: message.createdAt,
  };
}

export function artifactRecord(artifact: StoredArtifact): Artifact {
  return {
    id: artifact.id,
    runId: artifact.runId,
    toolCallId: artifact.toolCallId,
    kind: artifact.kind,
    name: artifact.name,
    bytes: artifact.bytes,
    sha256: artifact.sha256,
    createdAt: artifact.createdAt,
  };
}

/** `current` is true for the device asking; `push` is its push state, when known. */
export function deviceRecord(
  device: StoredDevice,
  currentDeviceId: string,
  push?: DevicePush,
): Device {
  return {
    deviceId: device.deviceId,
    name: device.name,
    platform: device.platform,
    pairedAt: device.pairedAt,
    lastSeenAt: device.lastSeenAt,
    revoked: device.revokedAt !== null,
    current: device.deviceId === currentDeviceId,
    ...(push === undefined ? {} : { push }),
  };
}
