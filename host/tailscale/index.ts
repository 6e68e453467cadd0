/**
 * host/tailscale: publishing the host on the user's tailnet with `tailscale serve`, and
 * reading what Tailscale says about it (docs/https.md).
 */
export {
  prepareTailnet,
  publishHost,
  unpublishHost,
  type TailnetPublication,
} from './publish-host.js';
export { parseServeConfig, proxiesTo, type ServeHandler } from './serve-config.js';
export { runTailscale } from './tailscale-command.js';
export { readTailnet, tailnetProblem } from './tailnet-status.js';
