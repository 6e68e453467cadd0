/**
 * What `tether start` prints once the host listens: who it is, its data, workspaces and
 * model, risky allow rules, how to trust its CA and pair a device, then the listening line
 * and, bound to every address, the LAN origins.
 */
import { realpathSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { tetherCommand } from '../../common/cli/index.js';
import type { HostConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { DEMO_MODEL_LABEL, DEMO_MODEL_NAME } from '../model/index.js';
import { allowRuleWarnings } from '../policy/index.js';
import type { SandboxStatus } from '../sandbox/index.js';
import type { TailnetPublication } from '../tailscale/index.js';
import type { LocalTls } from '../tls/index.js';
import { VERSION } from '../version.js';

export interface StartFacts {
  config: HostConfig;
  hostId: string;
  dataDirCreated: boolean;
  workspaces: readonly { path: string }[];
  /** The runtime's model; null with none configured. */
  modelName: string | null;
  tls: LocalTls | null;
  port: number;
  adminToken: string;
  /** The URL the listening line names (loopback when bound to every address). */
  url: string;
  /** The OS sandbox commands run in, or why there is none. */
  sandbox: SandboxStatus;
  /** With `--tailscale`: where `tailscale serve` publishes the host. */
  tailnet: TailnetPublication | null;
  /**
   * The host part a phone on the LAN can open: the `.local` name where it resolves here,
   * else a LAN address (lan-origin.ts).
   */
  lanName: string;
}

/**
 * A line for each workspace holding the data directory or the config file (a home folder
 * as workspace): tools are denied them there, but a command the user approves is not.
 */
function ownFilesInWorkspaces(
  config: HostConfig,
  workspaces: readonly { path: string }[],
): string[] {
  const own = [
    { what: 'data directory', path: config.dataDir },
    ...(config.configFile === null ? [] : [{ what: 'config file', path: config.configFile }]),
  ];
  return own.flatMap(({ what, path: named }) => {
    const real = realOrSelf(named);
    return workspaces
      .filter((workspace) => {
        const relative = path.relative(workspace.path, real);
        return relative !== '..' && !relative.startsWith('../') && !path.isAbsolute(relative);
      })
      .map(
        (workspace) =>
          `the workspace ${workspace.path} holds Tether's ${what} ${real}: tools never read or write it, but a command you approve could; keep it outside your workspaces`,
      );
  });
}

function realOrSelf(named: string): string {
  try {
    return realpathSync(named);
  } catch {
    return named;
  }
}

/**
 * The origin a pairing link names when the admin request gives none: for a wildcard bind,
 * `lanName` (the `.local` name where it resolves here, else a LAN address: lan-origin.ts).
 */
export function defaultOrigin(bind: string, port: number, https: boolean, lanName: string): string {
  const scheme = https ? 'https' : 'http';
  if (bind === '0.0.0.0' || bind === '::') return `${scheme}://${lanName}:${port}`;
  return `${scheme}://${bind.includes(':') ? `[${bind}]` : bind}:${port}`;
}

export function printStartBanner(
  print: (line: string) => void,
  log: Logger,
  facts: StartFacts,
): void {
  const { config, hostId, dataDirCreated, workspaces, modelName, tls, port, adminToken, url } =
    facts;
  const scheme = tls === null ? 'http' : 'https';
  const wildcard = config.bind === '0.0.0.0' || config.bind === '::';
  print(`Tether ${VERSION} · host ${config.hostName} (${hostId})`);
  // A mistyped --data starts a host with a new identity and no devices: say so plainly.
  print(
    dataDirCreated
      ? `data: ${config.dataDir} (new: created now; nothing from an earlier host is here)`
      : `data: ${config.dataDir}`,
  );
  print(`workspaces: ${workspaces.map((workspace) => workspace.path).join(', ')}`);
  for (const warning of ownFilesInWorkspaces(config, workspaces)) {
    print(`warning: ${warning}`);
    log.warn("a workspace holds Tether's own files", { warning });
  }
  print(
    config.demo
      ? `model: ${DEMO_MODEL_NAME} (${DEMO_MODEL_LABEL}; start without --demo and set TETHER_MODEL_BASE_URL, TETHER_MODEL and TETHER_MODEL_API_KEY for real work)`
      : modelName === null
        ? 'model: none configured; runs will fail until you set TETHER_MODEL_BASE_URL, TETHER_MODEL and TETHER_MODEL_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY with TETHER_MODEL)'
        : `model: ${modelName} at ${config.model?.baseUrl ?? ''}`,
  );
  const { sandbox } = facts;
  if (sandbox.available) {
    print(
      `sandbox: ${sandbox.kind === 'bwrap' ? 'bubblewrap' : 'sandbox-exec'} (${sandbox.program}): commands may change files only in their workspace, have no network and cannot read secrets unless you approve more`,
    );
  } else {
    print(
      `warning: no sandbox: ${sandbox.reason}, so every command asks for your approval and runs with full access; ${sandbox.fix} (docs/policy.md, "The sandbox")`,
    );
    log.warn('no sandbox: every command asks', { reason: sandbox.reason, fix: sandbox.fix });
  }
  for (const warning of allowRuleWarnings(config.policy, sandbox.available)) {
    print(`warning: ${warning} (docs/policy.md, "Never safe to allow")`);
    log.warn('risky allow rule', { warning });
  }
  if (tls !== null) {
    print(
      `https: local CA in ${config.dataDir}/tls for ${[...tls.names.dns, ...tls.names.ips].join(', ')}`,
    );
    print(
      `trust it on a phone: open ${defaultOrigin(config.bind, port, true, facts.lanName)}/ca.mobileconfig (docs/https.md)`,
    );
  }
  const { tailnet } = facts;
  if (tailnet !== null) {
    print(
      `tailnet: ${tailnet.origin} → ${tailnet.target} (tailscale serve --bg${tailnet.kept ? ', in place from before' : ''}; removed at a clean stop): pairing links name it`,
    );
  }
  print(`admin page: ${scheme}://127.0.0.1:${port}/admin#token=${adminToken}`);
  print(
    `pair a device: open the admin page, or run: ${tetherCommand()} pair --data '${config.dataDir}'`,
  );
  // No other line may contain "listening on": harnesses take the first match as the URL.
  const loopbackOnly = /^(127\.|::1$|localhost$)/.test(config.bind);
  if (loopbackOnly && tailnet === null) {
    print(
      `warning: bound to ${config.bind} only, so pairing links open on this computer alone, not on a phone: start with --bind 0.0.0.0 for the LAN, or with --tailscale for your tailnet (docs/https.md)`,
    );
  }
  print(`listening on ${url}`);
  if (wildcard) {
    const lan = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.internal && entry.family === 'IPv4')
      .map((entry) => `${scheme}://${entry.address}:${port}`);
    const named = defaultOrigin(config.bind, port, tls !== null, facts.lanName);
    print(`on your network: ${[...new Set([named, ...lan])].join(', ')}`);
  }
}
