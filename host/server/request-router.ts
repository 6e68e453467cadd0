/**
 * Maps each op of docs/protocol.md §6.2 onto the runtime and the store. Subscriptions are the
 * connection's business; everything else answers here.
 */
import {
  PROTOCOL_VERSION,
  MAX_FRAME_BYTES,
  MAX_READ_BYTES,
  type OpResult,
  type ValidRequest,
} from '../../protocol/index.js';
import { DEMO_MODEL_LABEL, DEMO_MODEL_NAME } from '../model/index.js';
import { REPLAY_WINDOW, type Runtime } from '../runtime/index.js';
import type { DownloadLinks } from './download-links.js';
import type { RequestOrigin } from './download-origin.js';

/** What the router needs besides the request. */
export interface RouterContext {
  runtime: Runtime;
  hostId: string;
  hostName: string;
  version: string;
  /**
   * Closes a revoked device's live sockets with 4403, at once; the asking connection
   * (`exceptConnection`) closes itself after its answer went out.
   */
  closeDeviceSockets(deviceId: string, exceptConnection?: string): void;
  /** Signs `download.link`s for the origin a connection came over. */
  downloads: DownloadLinks;
}

/** Ops answered by the router (subscribe and unsubscribe belong to the connection). */
export type RoutedRequest = Exclude<ValidRequest, { op: 'subscribe' } | { op: 'unsubscribe' }>;

function hostInfo(ctx: RouterContext): OpResult<'host.info'> {
  const { runtime } = ctx;
  return {
    hostId: ctx.hostId,
    name: ctx.hostName,
    version: ctx.version,
    protocol: PROTOCOL_VERSION,
    instance: runtime.instance,
    persistence: runtime.persistence,
    capabilities: ['runs', 'subscriptions', 'outputs', 'devices', 'approvals'],
    models: runtime.model === null ? [] : [...runtime.model.available],
    // The scripted demo model says so wherever a remote shows the host.
    ...(runtime.model?.name === DEMO_MODEL_NAME ? { modelNotice: DEMO_MODEL_LABEL } : {}),
    workspaces: runtime.workspaces.map((workspace) => ({ ...workspace })),
    limits: {
      maxFrameBytes: MAX_FRAME_BYTES,
      maxReadBytes: MAX_READ_BYTES,
      replayWindow: REPLAY_WINDOW,
      maxActiveRuns: runtime.limits.maxActiveRuns,
      maxModelTurns: runtime.limits.maxModelTurns,
      runWallTimeMs: runtime.limits.runWallTimeMs,
    },
  };
}

/**
 * Answers one validated request for `deviceId` on a connection from `origin`. Throws
 * TetherError for a failed answer; `download.link` answers with a promise (signing is
 * asynchronous), which rejects with one.
 */
export function routeRequest(
  ctx: RouterContext,
  request: RoutedRequest,
  deviceId: string,
  connectionId: string,
  origin: RequestOrigin,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { runtime } = ctx;
  switch (request.op) {
    case 'host.info':
      return hostInfo(ctx);
    case 'run.submit':
      return runtime.submit(request.args, deviceId);
    case 'run.cancel':
      return runtime.cancel(request.args, deviceId);
    case 'run.continue':
      return runtime.continueRun(request.args, deviceId);
    case 'toolcall.reconcile':
      return runtime.reconcile(request.args, deviceId);
    case 'approval.respond':
      return runtime.respondApproval(request.args, deviceId);
    case 'sessions.list':
      return runtime.listSessions(request.args);
    case 'runs.list':
      return runtime.listRuns(request.args);
    case 'run.get':
      return runtime.getRun(request.args.runId);
    case 'output.read':
      return runtime.readOutput(request.args);
    case 'artifact.read':
      return runtime.readArtifact(request.args);
    case 'download.link':
      return ctx.downloads.issue(request.args, deviceId, origin);
    case 'devices.list':
      return runtime.listDevices(deviceId);
    case 'device.revoke': {
      const result = runtime.revokeDevice(request.args, deviceId);
      ctx.closeDeviceSockets(request.args.deviceId, connectionId);
      return result;
    }
  }
}
