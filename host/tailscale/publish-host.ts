/**
 * Publishing the host on the tailnet with `tailscale serve --bg --https=443 <local URL>`,
 * and taking it back at a clean stop. `--bg` makes tailscaled keep the proxy when the
 * command returns, and after a crash: the next start finds it in place and keeps it. A
 * clean stop removes it, so no other program that later takes the port is published.
 */
import { commandLine, runTailscale } from './tailscale-command.js';
import { parseServeConfig, proxiesTo, type ServeHandler } from './serve-config.js';
import { readTailnet, tailnetProblem } from './tailnet-status.js';

/** A start, install or check that cannot go on; the message says what to run next. */
class TailscaleError extends Error {
  override readonly name = 'TailscaleError';
}

/** Who asks, for messages: the flag that asked for Tailscale and the step after the fix. */
interface TailscaleAsker {
  /** `--tailscale`, `service install --tailscale` */
  flag: string;
  /** `start the host again (tether start --tailscale …)` */
  next: string;
}

/** Where the host listens, and how `tailscale serve` should reach it. */
interface LocalHost {
  bind: string;
  port: number;
  /** The host serves HTTPS with its local CA (`--https`). */
  tls: boolean;
}

/** The host as published on the tailnet. */
export interface TailnetPublication {
  /** `https://mac.tail1234.ts.net` */
  origin: string;
  /** The URL `tailscale serve` proxies to: `http://127.0.0.1:8787`. */
  target: string;
  /** The `tailscale` command used. */
  program: string;
  /** The proxy was in place already (a crash, or a start after one). */
  kept: boolean;
}

const SERVE_TIMEOUT_MS = 20_000;
const HTTPS_PORT = 443;

/** The URL `tailscale serve` proxies to: loopback unless the host listens on one address. */
function localTarget(host: LocalHost): string {
  const wildcard = host.bind === '0.0.0.0' || host.bind === '::';
  const address = wildcard ? '127.0.0.1' : host.bind.includes(':') ? `[${host.bind}]` : host.bind;
  // tailscaled cannot check the local CA's certificate; the hop is on this machine.
  return `${host.tls ? 'https+insecure' : 'http'}://${address}:${host.port}`;
}

/**
 * Checks that the tailnet can publish the host over HTTPS and that nothing else holds its
 * `https://<name>/`; resolves with the name, the command and the handlers in place.
 *
 * @throws TailscaleError saying what is missing and what to run.
 */
export async function prepareTailnet(
  host: LocalHost,
  asker: TailscaleAsker,
): Promise<{ program: string; dnsName: string; handlers: ServeHandler[] }> {
  const state = await readTailnet();
  const problem = tailnetProblem(state);
  if (problem !== null || state.kind !== 'running') {
    throw refusal(asker, problem?.detail ?? 'Tailscale is not running', problem?.fix ?? '');
  }
  const { program, dnsName } = state;
  const handlers = await serveHandlers(program, asker);
  const taken = handlers.find(
    (handler) =>
      handler.hostPort === `${dnsName}:${HTTPS_PORT}` &&
      handler.mount === '/' &&
      !proxiesTo(handler.proxy, host.port, host.bind),
  );
  if (taken !== undefined) {
    throw refusal(
      asker,
      `tailscale serve already publishes ${taken.origin}/ to ${taken.target}${taken.foreground ? ' (a tailscale serve running in the foreground)' : ''}, not to this host's port ${host.port}`,
      `if that is no longer needed, free it with tailscale serve --https=${HTTPS_PORT} off`,
    );
  }
  return { program, dnsName, handlers };
}

/**
 * Publishes the host at `https://<machine>.<tailnet>.ts.net` (kept when already there).
 *
 * @throws TailscaleError with tailscale's own words when it refuses.
 */
export async function publishHost(
  host: LocalHost,
  asker: TailscaleAsker,
): Promise<TailnetPublication> {
  const { program, dnsName, handlers } = await prepareTailnet(host, asker);
  const origin = `https://${dnsName}`;
  const target = localTarget(host);
  const ours = (list: ServeHandler[]) =>
    list.some(
      (handler) =>
        !handler.foreground &&
        handler.hostPort === `${dnsName}:${HTTPS_PORT}` &&
        handler.mount === '/' &&
        proxiesTo(handler.proxy, host.port, host.bind),
    );
  if (ours(handlers)) return { origin, target, program, kept: true };
  const args = ['serve', '--bg', `--https=${HTTPS_PORT}`, target];
  const run = await runTailscale(program, args, SERVE_TIMEOUT_MS);
  const said = [run.stderr.trim(), run.stdout.trim()].filter((text) => text !== '').join('\n');
  if (run.code !== 0 || run.timedOut) {
    const how = run.timedOut ? `did not finish within ${SERVE_TIMEOUT_MS / 1000} s` : 'failed';
    throw refusal(asker, `${commandLine(args)} ${how}`, 'do what its output below says', said);
  }
  // Asked to turn a feature on first, the command prints a link and exits 0 having set nothing.
  if (!ours(await serveHandlers(program, asker))) {
    throw refusal(
      asker,
      `${commandLine(args)} did not publish the host`,
      'do what its output below says',
      said,
    );
  }
  return { origin, target, program, kept: false };
}

/**
 * Removes the proxy `publishHost` set, if it still names this host; resolves with what
 * went wrong, or null.
 */
export async function unpublishHost(
  publication: TailnetPublication,
  host: LocalHost,
): Promise<string | null> {
  const { program } = publication;
  let handlers: ServeHandler[];
  try {
    const status = await runTailscale(program, ['serve', 'status', '--json'], SERVE_TIMEOUT_MS);
    handlers = parseServeConfig(status.stdout);
  } catch (error) {
    return `cannot read tailscale serve status: ${(error as Error).message}`;
  }
  const origin = new URL(publication.origin);
  const still = handlers.some(
    (handler) =>
      !handler.foreground &&
      handler.hostPort === `${origin.hostname}:${HTTPS_PORT}` &&
      handler.mount === '/' &&
      proxiesTo(handler.proxy, host.port, host.bind),
  );
  if (!still) return null;
  const args = ['serve', `--https=${HTTPS_PORT}`, '--set-path=/', 'off'];
  const run = await runTailscale(program, args, SERVE_TIMEOUT_MS);
  return run.code === 0 && !run.timedOut
    ? null
    : `${commandLine(args)} failed: ${(run.stderr || run.stdout).trim()}`;
}

async function serveHandlers(program: string, asker: TailscaleAsker): Promise<ServeHandler[]> {
  const args = ['serve', 'status', '--json'];
  const run = await runTailscale(program, args, SERVE_TIMEOUT_MS);
  try {
    if (run.code !== 0) throw new Error(run.stderr.trim() || `exit ${run.code}`);
    return parseServeConfig(run.stdout);
  } catch (error) {
    throw refusal(asker, `${commandLine(args)} failed: ${(error as Error).message}`, '');
  }
}

/** One line for the log's last-error reader, then what tailscale itself printed. */
function refusal(asker: TailscaleAsker, detail: string, fix: string, output = ''): TailscaleError {
  const step = fix === '' ? '' : `${fix}, then `;
  const tail = output === '' ? '' : `\n${output}`;
  return new TailscaleError(
    `${asker.flag}: ${detail}: ${step}${asker.next}, or leave out --tailscale (docs/https.md)${tail}`,
  );
}
