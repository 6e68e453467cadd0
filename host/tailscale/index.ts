/**
 * host/tailscale: publishing the host on the user's tailnet with `tailscale serve`, and
 * reading what Tailscale says about it (docs/https.md).
 */
export {
  localTarget,
  prepareTailnet,
  publishHost,
  TailscaleError,
  unpublishHost,
  type LocalHost,
  type TailnetPublication,
  type TailscaleAsker,
} from './publish-host.js';
export { parseServeConfig, proxiesTo, type ServeHandler } from './serve-config.js';
export { findTailscale, runTailscale } from './tailscale-command.js';
export {
  readTailnet,
  tailnetProblem,
  type TailnetProblem,
  type TailnetState,
} from './tailnet-status.js';
