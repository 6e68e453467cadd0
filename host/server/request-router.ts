/**
 * Answers each op of docs/protocol.md §6.2 on an open channel: one handler per op, typed by
 * its args and result, and one path from a thrown error to a failed `res`.
 */
import {
  ATTACHMENT_CHUNK_BYTES,
  CloseCode,
  MAX_FRAME_BYTES,
  MAX_READ_BYTES,
  PROTOCOL_VERSION,
  TetherError,
  acceptCheck,
  isOpName,
  OPS,
  parseRequest,
  type OpArgs,
  type OpName,
  type OpResult,
  type RequestMessage,
  type ResponseMessage,
} from '../../protocol/index.js';
import type { Logger } from '../log/index.js';
import { DEMO_MODEL_LABEL, DEMO_MODEL_NAME } from '../model/index.js';
import { REPLAY_WINDOW, type Runtime } from '../runtime/index.js';
import type { ChannelSubscriptions } from './channel-subscriptions.js';
import type { DownloadLinks } from './download-links.js';
import type { RequestOrigin } from './download-origin.js';

/** What the router needs of the host, the same for every connection. */
export interface RouterContext {
  runtime: Runtime;
  hostId: string;
  hostName: string;
  version: string;
  log: Logger;
  /**
   * Closes a revoked device's live sockets with 4403, at once; the asking connection
   * (`exceptConnection`) closes itself after its answer went out.
   */
  closeDeviceSockets(deviceId: string, exceptConnection?: string): void;
  /** Signs `download.link`s for the origin a connection came over. */
  downloads: DownloadLinks;
}

/** One open channel, as its requests see it. */
export interface RequestChannel {
  host: RouterContext;
  /** The device the channel belongs to: every request acts for it. */
  deviceId: string;
  connectionId: string;
  /** The origin the remote connected to (for download links). */
  origin: RequestOrigin;
  subscriptions: ChannelSubscriptions;
  /** Sends an answer; false when it did not go out. */
  sendAnswer(response: ResponseMessage): boolean;
  /** Sends the successful answer to request `id` whose result is encoded as `resultJson`. */
  sendEncodedAnswer(id: string, resultJson: string): boolean;
  /** Closes this channel's socket with `code`. */
  close(code: CloseCode, reason: string): void;
}

/** What a handler gets besides its args. */
export interface RequestContext extends RequestChannel {
  /** Runs `then` once the answer went out (`sent`) or could not (a full or closed socket). */
  afterAnswer(then: (sent: boolean) => void): void;
}

type Handler<O extends OpName> = (
  ctx: RequestContext,
  args: OpArgs<O>,
) => OpResult<O> | EncodedResult | Promise<OpResult<O>>;

/**
 * A result its handler encoded already (`result`'s JSON text): sent as it is, so what does
 * not change from one request to the next is not encoded again.
 */
class EncodedResult {
  constructor(readonly json: string) {}
}

function hostInfoResult(host: RouterContext): OpResult<'host.info'> {
  const { runtime } = host;
  return {
    hostId: host.hostId,
    name: host.hostName,
    version: host.version,
    protocol: PROTOCOL_VERSION,
    instance: runtime.instance,
    persistence: runtime.persistence,
    history: runtime.history,
    capabilities: [
      'runs',
      'subscriptions',
      'outputs',
      'devices',
      'approvals',
      'rules',
      'worktrees',
      'attachments',
      ...(runtime.pushes.vapidPublicKey === null ? [] : ['push']),
    ],
    models: runtime.model === null ? [] : [...runtime.model.available],
    ...(runtime.model === null ? {} : { model: runtime.model.name }),
    // The scripted demo model says so wherever a remote shows the host.
    ...(runtime.model?.name === DEMO_MODEL_NAME ? { modelNotice: DEMO_MODEL_LABEL } : {}),
    workspaces: runtime.workspaces.map((workspace) => ({ ...workspace })),
    ...(runtime.mcpServers === null ? {} : { mcpServers: runtime.mcpServers }),
    ...(runtime.agents === null ? {} : { agents: runtime.agents }),
    // Whether the microphone can be transcribed; nothing of the endpoint itself.
    voice: { configured: runtime.voice.configured },
    ...(runtime.pushes.vapidPublicKey === null
      ? {}
      : { push: { vapidPublicKey: runtime.pushes.vapidPublicKey } }),
    limits: {
      maxFrameBytes: MAX_FRAME_BYTES,
      maxReadBytes: MAX_READ_BYTES,
      replayWindow: REPLAY_WINDOW,
      maxActiveRuns: runtime.limits.maxActiveRuns,
      maxModelTurns: runtime.limits.maxModelTurns,
      runWallTimeMs: runtime.limits.runWallTimeMs,
      attachmentMaxBytes: runtime.limits.attachmentMaxBytes,
      runAttachmentsMaxBytes: runtime.limits.runAttachmentsMaxBytes,
      attachmentChunkBytes: ATTACHMENT_CHUNK_BYTES,
    },
  };
}

/** The last `host.info` encoded by each host (its runtime), and what it was built from. */
const encodedInfo = new WeakMap<Runtime, { changing: string; json: string }>();

/**
 * `host.info`, built and encoded once per change: what may change while the host runs
 * (the store's condition, its history, the MCP servers' states, push) is compared, as
 * JSON, with what the last answer was built from; the rest is fixed at start.
 */
function hostInfo({ host }: RequestContext): EncodedResult {
  const { runtime } = host;
  const changing = JSON.stringify([
    runtime.persistence,
    runtime.history,
    runtime.mcpServers,
    runtime.agents,
    runtime.pushes.vapidPublicKey,
  ]);
  let cached = encodedInfo.get(runtime);
  if (cached?.changing !== changing) {
    cached = { changing, json: JSON.stringify(hostInfoResult(host)) };
    encodedInfo.set(runtime, cached);
  }
  return new EncodedResult(cached.json);
}

const HANDLERS: { [O in OpName]: Handler<O> } = {
  'host.info': hostInfo,
  'run.submit': ({ host, deviceId }, args) => host.runtime.submit(args, deviceId),
  'run.cancel': ({ host, deviceId }, args) => host.runtime.cancel(args, deviceId),
  'run.continue': ({ host, deviceId }, args) => host.runtime.continueRun(args, deviceId),
  'toolcall.reconcile': ({ host, deviceId }, args) => host.runtime.reconcile(args, deviceId),
  'approval.respond': ({ host, deviceId }, args) => host.runtime.respondApproval(args, deviceId),
  // Git merges, removes worktrees: these answers are promises.
  'run.integrate': ({ host, deviceId }, args) => host.runtime.integrate(args, deviceId),
  'run.review': ({ host }, args) => host.runtime.review(args.runId),
  subscribe: (ctx, args) => {
    const subscription = ctx.host.runtime.subscribe(args, ctx.deviceId);
    const sub = ctx.subscriptions.add(subscription, args.scope ?? {});
    // Events flow only after the answer; if it cannot be sent, the subscription must not
    // live on unseen.
    ctx.afterAnswer((sent) => (sent ? ctx.subscriptions.start(sub) : ctx.subscriptions.close(sub)));
    return {
      sub,
      mode: subscription.mode,
      cursor: subscription.cursor,
      // The runtime builds the snapshot for the scope asked (host/runtime/runtime.ts).
      ...(subscription.mode === 'snapshot'
        ? { snapshot: subscription.snapshot as OpResult<'subscribe'>['snapshot'] }
        : {}),
    };
  },
  unsubscribe: (ctx, args) => {
    ctx.subscriptions.close(args.sub);
    return {};
  },
  'sessions.list': ({ host }, args) => host.runtime.listSessions(args),
  'runs.list': ({ host }, args) => host.runtime.listRuns(args),
  'run.get': ({ host }, args) => host.runtime.getRun(args.runId),
  'run.changes': ({ host }, args) => host.runtime.runChanges(args.runId),
  'run.usage': ({ host }, args) => host.runtime.runUsage(args.runId),
  'output.read': ({ host }, args) => host.runtime.readOutput(args),
  'artifact.read': ({ host }, args) => host.runtime.readArtifact(args),
  // Signing is asynchronous: this answer is a promise.
  'download.link': (ctx, args) => ctx.host.downloads.issue(args, ctx.deviceId, ctx.origin),
  'devices.list': ({ host, deviceId }) => host.runtime.devices.list(deviceId),
  'device.revoke': (ctx, args) => {
    const result = ctx.host.runtime.devices.revoke(args, ctx.deviceId);
    ctx.host.closeDeviceSockets(args.deviceId, ctx.connectionId);
    if (args.deviceId === ctx.deviceId) {
      ctx.afterAnswer((sent) => {
        if (sent) ctx.close(CloseCode.revoked, 'device_revoked');
      });
    }
    return result;
  },
  'device.rename': ({ host, deviceId }, args) => host.runtime.devices.rename(args, deviceId),
  'push.subscribe': ({ host, deviceId }, args) => host.runtime.pushes.subscribe(args, deviceId),
  'push.unsubscribe': ({ host, deviceId }, args) => host.runtime.pushes.unsubscribe(args, deviceId),
  // The test push goes out before the answer: this answer is a promise.
  'push.test': ({ host, deviceId }, args) => host.runtime.pushes.test(args, deviceId),
  'policy.rules': ({ host }) => host.runtime.listRules(),
  // The rule is checked again on the files as they are now: this answer is a promise.
  'policy.rule_add': ({ host, deviceId }, args) => host.runtime.addRule(args, deviceId),
  'policy.rule_remove': ({ host, deviceId }, args) => host.runtime.removeRule(args, deviceId),
  'attachment.put': ({ host, deviceId }, args) => host.runtime.putAttachment(args, deviceId),
  'attachment.status': ({ host, deviceId }, args) =>
    host.runtime.attachmentStatus(args.attachmentId, deviceId),
  // The endpoint answers before the host does: this answer is a promise.
  'voice.transcribe': ({ host, deviceId }, args) => host.runtime.voice.transcribe(args, deviceId),
  'attachment.read': ({ host, deviceId }, args) => host.runtime.readAttachment(args, deviceId),
};

function handle<O extends OpName>(
  ctx: RequestContext,
  request: { op: O; args: OpArgs<O> },
): OpResult<O> | EncodedResult | Promise<OpResult<O>> {
  const handler: Handler<O> = HANDLERS[request.op];
  return handler(ctx, request.args);
}

/**
 * The failed `res` for whatever a request threw: a TetherError as it is, anything else
 * `internal` with its cause kept and logged with its stack.
 */
function failedAnswer(log: Logger, message: RequestMessage, error: unknown): ResponseMessage {
  const failure = TetherError.from(error);
  if (failure.code === 'internal') {
    const { cause } = failure;
    log.error('request failed', {
      op: message.op,
      error: cause instanceof Error ? (cause.stack ?? String(cause)) : String(cause),
    });
  }
  return { t: 'res', id: message.id, ok: false, error: failure.toWire() };
}

/**
 * {@link parseRequest}, through the op's compiled accept check first: the args remotes
 * send are certainly valid and returned as they are; anything else goes to zod.
 */
function readRequest(message: RequestMessage): ReturnType<typeof parseRequest> {
  if (isOpName(message.op) && acceptCheck(OPS[message.op].args)?.(message.args) === true) {
    return { id: message.id, op: message.op, args: message.args } as ReturnType<
      typeof parseRequest
    >;
  }
  return parseRequest(message);
}

/**
 * Answers one request on `channel`: validates it, runs its handler, and sends one `res`,
 * now or (for an asynchronous handler) once it settles.
 */
export function answerRequest(channel: RequestChannel, message: RequestMessage): void {
  let after: ((sent: boolean) => void) | undefined;
  const ctx: RequestContext = {
    ...channel,
    afterAnswer: (then) => {
      after = then;
    },
  };
  const succeed = (result: Record<string, unknown> | EncodedResult): void => {
    const sent =
      result instanceof EncodedResult
        ? channel.sendEncodedAnswer(message.id, result.json)
        : channel.sendAnswer({ t: 'res', id: message.id, ok: true, result });
    after?.(sent);
  };
  // A failed request leaves nothing to do after its answer.
  const fail = (error: unknown): void => {
    channel.sendAnswer(failedAnswer(channel.host.log, message, error));
  };
  let result: Record<string, unknown> | EncodedResult | Promise<Record<string, unknown>>;
  try {
    result = handle(ctx, readRequest(message));
  } catch (error) {
    return fail(error);
  }
  if (result instanceof Promise) result.then(succeed, fail);
  else succeed(result);
}
