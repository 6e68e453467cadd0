/**
 * protocol/: the wire contract of docs/protocol.md as schemas, types, digests and errors.
 * Runs in Node and the browser; imports no other folder of ours. Names only tests use are
 * in ./testing.ts.
 */
export {
  b64u,
  bytesEqual,
  bytesToHex,
  concatBytes,
  fromB64u,
  fromUtf8,
  isAllZero,
  isB64uOfLength,
  readU32be,
  u16be,
  u64be,
  utf8,
} from './encoding.js';
export { digest } from './digest.js';
export {
  CloseCode,
  ERROR_CODE_NAMES,
  ERROR_CODES,
  errorMessage,
  isErrorCode,
  TetherError,
} from './errors.js';
export type { ErrorCode } from './errors.js';
export type { ModelFailureCode, RunFailure, ToolFailureCode } from './failures.js';
export { describeIssues, parseJson, parseWith } from './validate.js';
export { PAIR_REFUSALS, pairRefusalOf, type PairRefusal } from './pair-refusal.js';
export { acceptCheck, quickSafeParse } from './accept-check.js';
export { setEnglishIssueMessages } from './zod-messages.js';
export {
  b64uBytes,
  CommandId,
  DeviceName,
  JsonObject,
  MAX_FRAME_BYTES,
  Millis,
  PeerId,
  PROTOCOL_VERSION,
  Seq,
  Sha256Hex,
} from './primitives.js';
export {
  HandshakeErrorMessage,
  HelloMessage,
  PairChallengeMessage,
  PairChallengePayload,
  PairConfirmMessage,
  PairedMessage,
  PairMessage,
  PairPayload,
  WelcomeMessage,
} from './handshake.js';
export {
  ApprovalState,
  canTransition,
  isActiveRunState,
  isTerminalRunState,
  isTerminalToolCallState,
  RunState,
  ToolCallState,
} from './states.js';
export {
  AllowedBy,
  AllowRule,
  Approval,
  ApprovalPreview,
  Artifact,
  CommandSandbox,
  Device,
  LiveState,
  McpServerInfo,
  Message,
  Run,
  RunError,
  RuleProposal,
  RunInput,
  Session,
  ToolAccessKind,
  ToolCall,
} from './records.js';
export { sandboxScopeLine } from './sandbox-scope.js';
export { commandLine } from './command-line.js';
export {
  ChangedFile,
  CHANGES_ANSWER_BYTES,
  CHANGES_COMMAND_CHARS,
  CHANGES_INLINE_DIFF_BYTES,
  CHANGES_INLINE_TOTAL_BYTES,
  CommandRun,
  FileWrite,
  RunChanges,
} from './run-changes.js';
export { TokenUsage } from './usage.js';
export {
  ATTACHMENT_CHUNK_BYTES,
  attachmentChunks,
  isAudioMediaType,
  isImageMediaType,
  MAX_RUN_ATTACHMENTS,
  sniffAudioType,
  sniffImageType,
} from './attachment-bytes.js';
export { Attachment, AttachmentChunk, AttachmentProgress } from './attachment-records.js';
export { IntegrateAction } from './worktree-args.js';
export { AGENT_NAME, AgentInfo, AgentToolInput } from './agents.js';
export {
  IntegrateResult,
  RunIntegrated,
  RunResult,
  RunReview,
  SessionWorktree,
} from './worktree.js';
export { DEFAULT_PUSH_KINDS, DevicePush, PushKind, PushPayload } from './push.js';
export { Event } from './events.js';
export { eventJson, keepEventJson } from './event-json.js';
export type { EventPayload, NewEvent } from './events.js';
export {
  isOpName,
  MAX_READ_BYTES,
  OPS,
  RunGetResult,
  SubscribeScope,
  UnscopedSnapshot,
} from './ops.js';
export type { CommandOpName, OpArgs, OpName, OpResult } from './ops.js';
export {
  HostMessage,
  LaggedMessage,
  OutputMessage,
  parseRequest,
  PreviewMessage,
  RemoteMessage,
  RequestMessage,
  ResponseMessage,
  StatusMessage,
} from './messages.js';
