/**
 * Maps each op of PROTOCOL.md 6.2 onto the runtime and the store. Subscriptions are the
 * connection's business; everything else answers here.
 */
import {
  PROTOCOL_VERSION,
  MAX_FRAME_BYTES,
  MAX_READ_BYTES,
  TetherError,
  type OpResult,
  type ValidRequest,
} from '../../protocol/index.js';
import { REPLAY_WINDOW, type Runtime } from '../runtime/index.js';

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
    capabilities: ['runs', 'subscriptions', 'outputs', 'devices', 'approvals'],
    models: runtime.model === null ? [] : [...runtime.model.available],
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

/** Answers one validated request for `deviceId`. Throws TetherError for a failed answer. */
export function routeRequest(
  ctx: RouterContext,
  request: RoutedRequest,
  deviceId: string,
  connectionId: string,
): Record<string, unknown> {
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
      throw new TetherError(
        'invalid_state',
        'download links are not served by this host yet: page through output.read or artifact.read',
        { details: { state: 'unsupported' } },
      );
    case 'devices.list':
      return runtime.listDevices(deviceId);
    case 'device.revoke': {
      const result = runtime.revokeDevice(request.args, deviceId);
      ctx.closeDeviceSockets(request.args.deviceId, connectionId);
      return result;
    }
  }
}
