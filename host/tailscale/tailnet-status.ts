/**
 * What `tailscale status --json` says about this machine's tailnet, and what stands in the
 * way of publishing the host on it: Tailscale missing, its daemon down, logged out, or
 * MagicDNS or HTTPS certificates off in the tailnet (`CertDomains` is then `null`).
 */
import { z } from 'zod';
import { findTailscale, runTailscale } from './tailscale-command.js';

/** The fields of `tailscale status --json` (ipnstate.Status) Tether reads; Go writes nil slices as null. */
const Status = z.object({
  BackendState: z.string(),
  AuthURL: z.string().nullish(),
  Self: z.object({ DNSName: z.string().nullish() }).nullish(),
  CurrentTailnet: z.object({ MagicDNSEnabled: z.boolean().optional() }).nullish(),
  CertDomains: z.array(z.string()).nullish(),
});

/** This machine's Tailscale, as `tailscale status --json` tells it. */
export type TailnetState =
  | { kind: 'missing' }
  /** The command ran but did not answer: its daemon is not running, or it printed no status. */
  | { kind: 'unreachable'; program: string; detail: string }
  /** Not connected: `NeedsLogin`, `Stopped`, `NeedsMachineAuth`, `Starting`… */
  | { kind: 'not-running'; program: string; backendState: string; authUrl: string }
  | {
      kind: 'running';
      program: string;
      /** This machine's MagicDNS name without the final dot: `mac.tail1234.ts.net`. */
      dnsName: string;
      magicDns: boolean;
      /** HTTPS certificates are on in the tailnet: `CertDomains` names this machine. */
      httpsCertificates: boolean;
    };

/** What is wrong, and the step that cures it. */
interface TailnetProblem {
  detail: string;
  fix: string;
}

const STATUS_TIMEOUT_MS = 10_000;
const ADMIN_DNS = 'https://login.tailscale.com/admin/dns';

/** Runs `tailscale status --json` and reads it; never throws. */
export async function readTailnet(program = findTailscale()): Promise<TailnetState> {
  if (program === null) return { kind: 'missing' };
  const run = await runTailscale(program, ['status', '--json'], STATUS_TIMEOUT_MS);
  let parsed: ReturnType<typeof Status.safeParse> | null;
  try {
    parsed = Status.safeParse(JSON.parse(run.stdout));
  } catch {
    parsed = null;
  }
  // With --json the status is printed whatever the state; only a daemon that does not
  // answer leaves stdout empty (and says why on stderr).
  if (parsed === null || !parsed.success) {
    const said = (run.stderr.trim() || run.stdout.trim()).split('\n')[0] ?? '';
    const detail = run.timedOut
      ? `tailscale status --json did not answer within ${STATUS_TIMEOUT_MS / 1000} s`
      : `tailscale status --json failed${said === '' ? '' : `: ${said}`}`;
    return { kind: 'unreachable', program, detail };
  }
  const status = parsed.data;
  if (status.BackendState !== 'Running') {
    return {
      kind: 'not-running',
      program,
      backendState: status.BackendState,
      authUrl: status.AuthURL ?? '',
    };
  }
  const dnsName = (status.Self?.DNSName ?? '').replace(/\.$/, '');
  return {
    kind: 'running',
    program,
    dnsName,
    magicDns: status.CurrentTailnet?.MagicDNSEnabled === true,
    httpsCertificates: dnsName !== '' && (status.CertDomains ?? []).includes(dnsName),
  };
}

/** Why the host cannot be published over HTTPS on this tailnet; null when it can. */
export function tailnetProblem(state: TailnetState): TailnetProblem | null {
  switch (state.kind) {
    case 'missing':
      return {
        detail: 'Tailscale is not installed (no tailscale command on PATH)',
        fix: 'install it from https://tailscale.com/download and sign in with tailscale up',
      };
    case 'unreachable':
      return {
        detail: state.detail,
        fix: 'start Tailscale (open the Tailscale app, or sudo systemctl start tailscaled)',
      };
    case 'not-running':
      return notRunning(state.backendState, state.authUrl);
    case 'running':
      if (state.dnsName === '') {
        return {
          detail: 'tailscale status --json names no MagicDNS name for this machine',
          fix: `turn on MagicDNS at ${ADMIN_DNS}`,
        };
      }
      if (!state.magicDns) {
        return {
          detail: `MagicDNS is off in this tailnet, so ${state.dnsName} does not resolve on your devices`,
          fix: `turn on MagicDNS at ${ADMIN_DNS}`,
        };
      }
      if (!state.httpsCertificates) {
        return {
          detail: `HTTPS certificates are off in this tailnet (tailscale status --json lists no CertDomains), so tailscale serve cannot publish https://${state.dnsName}`,
          fix: `turn on HTTPS Certificates at ${ADMIN_DNS} (Enable HTTPS)`,
        };
      }
      return null;
  }
}

function notRunning(backendState: string, authUrl: string): TailnetProblem {
  switch (backendState) {
    case 'NeedsLogin':
      return {
        detail: 'Tailscale is logged out (NeedsLogin)',
        fix: `sign in with tailscale up${authUrl === '' ? '' : ` (or at ${authUrl})`}`,
      };
    case 'Stopped':
      return { detail: 'Tailscale is stopped', fix: 'connect it with tailscale up' };
    case 'NeedsMachineAuth':
      return {
        detail: 'this machine waits for an admin to approve it in the tailnet (NeedsMachineAuth)',
        fix: 'approve it at https://login.tailscale.com/admin/machines',
      };
    default:
      return {
        detail: `Tailscale is ${backendState}, not Running`,
        fix: 'wait until tailscale status shows it connected',
      };
  }
}
