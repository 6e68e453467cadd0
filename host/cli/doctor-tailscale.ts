/**
 * `tether doctor`'s `tailscale` check: is Tailscale connected, are MagicDNS and HTTPS
 * certificates on in the tailnet, and does `tailscale serve` publish this host's port.
 * Without Tailscale, or with it but not used for this host, the check is a skip; for a
 * host started with `--tailscale`, anything in the way is a failure.
 */
import { tetherCommand } from '../../common/cli/index.js';
import {
  parseServeConfig,
  proxiesTo,
  readTailnet,
  runTailscale,
  tailnetProblem,
  type ServeHandler,
} from '../tailscale/index.js';
import type { CheckResult } from './doctor-checks.js';

/** The host the check is about. */
export interface TailscaleCheckHost {
  port: number;
  bind: string;
  /** The origin the running host published with `--tailscale`; undefined when it did not. */
  published: string | undefined;
}

const id = 'tailscale';

export async function checkTailscale(host: TailscaleCheckHost): Promise<CheckResult> {
  const { port, bind, published } = host;
  const used = published !== undefined;
  const state = await readTailnet();
  const problem = tailnetProblem(state);
  const startAgain = `${tetherCommand()} service restart, or ${tetherCommand()} start --tailscale`;
  if (state.kind !== 'running') {
    const detail = problem?.detail ?? 'Tailscale is not running';
    if (!used) {
      return {
        id,
        status: 'skip',
        detail: `${detail} (${tetherCommand()} start --tailscale publishes the host on your tailnet: docs/https.md)`,
      };
    }
    return { id, status: 'fail', detail, fix: `${problem?.fix ?? ''}, then ${startAgain}` };
  }
  const settings = `MagicDNS ${state.magicDns ? 'on' : 'off'}, HTTPS certificates ${state.httpsCertificates ? 'on' : 'off'}`;
  let handlers: ServeHandler[];
  const status = await runTailscale(state.program, ['serve', 'status', '--json'], 10_000);
  try {
    if (status.code !== 0) throw new Error(status.stderr.trim() || `exit ${status.code}`);
    handlers = parseServeConfig(status.stdout);
  } catch (error) {
    return {
      id,
      status: used ? 'fail' : 'skip',
      detail: `tailscale serve status --json failed: ${(error as Error).message}`,
      ...(used ? { fix: 'tailscale serve status shows what is wrong' } : {}),
    };
  }
  const ours = handlers.filter(
    (handler) => handler.mount === '/' && proxiesTo(handler.proxy, port, bind),
  );
  const best = ours.find((handler) => handler.https && !handler.foreground) ?? ours[0];
  if (best === undefined) {
    const elsewhere = handlers.find(
      (handler) => handler.hostPort === `${state.dnsName}:443` && handler.mount === '/',
    );
    if (!used) {
      return {
        id,
        status: 'skip',
        detail: `Tailscale is running (${settings}) but does not publish this host${elsewhere === undefined ? '' : ` (${elsewhere.origin}/ goes to ${elsewhere.target})`}: ${tetherCommand()} start --tailscale would publish it at https://${state.dnsName}`,
      };
    }
    return elsewhere === undefined
      ? {
          id,
          status: 'fail',
          detail: `the host was started with --tailscale for ${published}, but tailscale serve publishes nothing for port ${port} (removed by hand, or tailscale serve reset?)`,
          fix: `restart the host: ${startAgain}`,
        }
      : {
          id,
          status: 'fail',
          detail: `tailscale serve publishes ${elsewhere.origin}/ to ${elsewhere.target}, not to this host's port ${port}`,
          fix: `tailscale serve --https=443 off, then ${startAgain}`,
        };
  }
  if (!best.https) {
    return {
      id,
      status: 'fail',
      detail: `tailscale serve publishes this host over plain HTTP at ${best.origin}: the app, push and install need HTTPS`,
      fix: `tailscale serve --http=${best.hostPort.split(':').at(-1) ?? '80'} off, then ${startAgain}`,
    };
  }
  if (problem !== null) {
    return {
      id,
      status: 'fail',
      detail: `tailscale serve publishes this host at ${best.origin}, but ${problem.detail}`,
      fix: problem.fix,
    };
  }
  const how = best.foreground
    ? 'a tailscale serve in the foreground: gone when that command ends'
    : 'tailscale serve --bg';
  return { id, status: 'pass', detail: `${best.origin} → ${best.target} (${how}; ${settings})` };
}
