/**
 * A fake `tailscale` command on PATH: a Node script that keeps its state in files and
 * prints what the real one (1.7x–1.9x, cmd/tailscale/cli) prints for it:
 *
 * - `status --json`: ipnstate.Status, indented as Go's json.MarshalIndent writes it, nil
 *   slices as `null` (`CertDomains` is null when HTTPS certificates are off in the
 *   tailnet), `Self.DNSName` with its final dot; logged out: `BackendState: "NeedsLogin"`,
 *   no tailnet. With the daemon down it prints nothing on stdout and the CLI's own error.
 * - `serve status --json`: the ipn.ServeConfig (`{}` when empty).
 * - `serve --bg --https=443 <target>`: sets the handler and prints "Available within your
 *   tailnet: …"; with HTTPS certificates off it prints the feature link and waits for the
 *   feature to be turned on, as the real one does; without the operator right it fails
 *   with "Access denied: serve config denied" and the CLI's sudo hint.
 * - `serve [--https=443] [--set-path=/] off`: removes it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** What the fake tailnet looks like. */
export interface FakeTailnet {
  /** tailscaled answers (false: "failed to connect to local tailscaled…"). */
  daemon: boolean;
  /** `Running`, `NeedsLogin`, `Stopped`, `NeedsMachineAuth`, `Starting`. */
  backendState: string;
  /** This machine's MagicDNS name, without the final dot. */
  dnsName: string;
  magicDns: boolean;
  /** HTTPS certificates on in the tailnet: `CertDomains` names this machine. */
  https: boolean;
  /** The user may change the serve config (else "Access denied"). */
  operator: boolean;
}

export interface FakeTailscale {
  /** The folder holding `tailscale`: put it first on PATH. */
  bin: string;
  /** Variables the child needs (FAKE_TAILSCALE_DIR). */
  env: Record<string, string>;
  set(changes: Partial<FakeTailnet>): void;
  /** Every call so far, `serve --bg --https=443 http://127.0.0.1:8787` style. */
  calls(): string[];
  /** The serve config as `serve status --json` prints it, parsed. */
  serveConfig(): Record<string, unknown>;
  /** Replaces the serve config (another program's, a foreground one…). */
  setServeConfig(config: Record<string, unknown>): void;
}

const DEFAULTS: FakeTailnet = {
  daemon: true,
  backendState: 'Running',
  dnsName: 'mac.tail1234.ts.net',
  magicDns: true,
  https: true,
  operator: true,
};

const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.FAKE_TAILSCALE_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(path.join(dir, 'calls'), args.join(' ') + '\n');
const state = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
const serveFile = path.join(dir, 'serve.json');
const readServe = () => (fs.existsSync(serveFile) ? JSON.parse(fs.readFileSync(serveFile, 'utf8')) : {});
const json = (value) => process.stdout.write(JSON.stringify(value, null, '  ') + '\n');
if (!state.daemon) {
  process.stderr.write("failed to connect to local tailscaled; it doesn't appear to be running (sudo systemctl start tailscaled ?)\n");
  process.exit(1);
}
const running = state.backendState === 'Running';
const ips = ['100.101.102.103', 'fd7a:115c:a1e0::4c01:6667'];
if (args[0] === 'status' && args.includes('--json')) {
  json({
    Version: '1.84.0-t1234abcd-g1234abcd',
    TUN: true,
    BackendState: state.backendState,
    HaveNodeKey: true,
    AuthURL: state.backendState === 'NeedsLogin' ? 'https://login.tailscale.com/a/1a2b3c4d5e6f' : '',
    TailscaleIPs: running ? ips : null,
    Self: {
      ID: 'nFAKE1CNTRL',
      PublicKey: 'nodekey:' + '0'.repeat(64),
      HostName: state.dnsName.split('.')[0],
      DNSName: running ? state.dnsName + '.' : '',
      OS: 'linux',
      UserID: 1234,
      TailscaleIPs: running ? ips : null,
      Online: running,
      Capabilities: running && state.https ? ['HTTPS://TAILSCALE.COM/s/DEPRECATED-NODE-CAPS#see-https://github.com/tailscale/tailscale/issues/11508', 'https'] : null,
      CapMap: running && state.https ? { https: null } : null,
    },
    Health: [],
    MagicDNSSuffix: running ? state.dnsName.split('.').slice(1).join('.') : '',
    CurrentTailnet: running
      ? { Name: 'user@example.com', MagicDNSSuffix: state.dnsName.split('.').slice(1).join('.'), MagicDNSEnabled: state.magicDns }
      : null,
    CertDomains: running && state.https && state.magicDns ? [state.dnsName] : null,
    Peer: null,
    User: null,
    ClientVersion: null,
  });
  process.exit(0);
}
if (args[0] === 'serve' && args[1] === 'status') {
  json(readServe());
  process.exit(0);
}
if (args[0] === 'serve') {
  const flags = args.filter((arg) => arg.startsWith('--'));
  const rest = args.slice(1).filter((arg) => !arg.startsWith('--'));
  const https = Number((flags.find((f) => f.startsWith('--https=')) || '--https=443').slice(8));
  const hostPort = state.dnsName + ':' + https;
  const config = readServe();
  if (rest[rest.length - 1] === 'off') {
    const web = (config.Web || {})[hostPort];
    if (!web || !web.Handlers || Object.keys(web.Handlers).length === 0) {
      process.stderr.write('error: failed to remove web serve: handler does not exist\n\ntry \x60tailscale serve --help\x60 for usage info\n');
      process.exit(1);
    }
    delete web.Handlers['/'];
    if (Object.keys(web.Handlers).length === 0) {
      delete config.Web[hostPort];
      if (config.TCP) delete config.TCP[String(https)];
    }
    for (const key of ['Web', 'TCP']) if (config[key] && Object.keys(config[key]).length === 0) delete config[key];
    fs.writeFileSync(serveFile, JSON.stringify(config));
    process.exit(0);
  }
  if (!flags.includes('--bg')) {
    process.stderr.write('fake tailscale: only --bg serves are faked\n');
    process.exit(2);
  }
  if (!state.https) {
    process.stdout.write('\nServe is not enabled on your tailnet.\nTo enable, visit:\n\n         https://login.tailscale.com/f/serve?node=nFAKE1CNTRL\n\n');
    setTimeout(() => process.exit(0), 60_000);
    return;
  }
  if (!state.operator) {
    const line = args.join(' ');
    process.stderr.write("sending serve config: Access denied: serve config denied\n\nUse 'sudo tailscale " + line + "'.\nTo not require root, use 'sudo tailscale set --operator=$USER' once.\n");
    process.exit(1);
  }
  let target = rest[0];
  if (/^\d+$/.test(target)) target = 'http://127.0.0.1:' + target;
  config.TCP = Object.assign(config.TCP || {}, { [String(https)]: { HTTPS: true } });
  config.Web = Object.assign(config.Web || {}, { [hostPort]: { Handlers: { '/': { Proxy: target } } } });
  fs.writeFileSync(serveFile, JSON.stringify(config));
  const portPart = https === 443 ? '' : ':' + https;
  process.stdout.write('Available within your tailnet:\n\nhttps://' + state.dnsName + portPart + '/\n|-- proxy ' + target + '\n\nServe started and running in the background.\nTo disable the proxy, run: tailscale serve --https=' + https + ' off\n');
  process.exit(0);
}
process.stderr.write('fake tailscale: not faked: ' + args.join(' ') + '\n');
process.exit(2);
`;

/** Writes the fake into `root/tailscale-bin` with a Running tailnet, HTTPS on, nothing served. */
export function writeFakeTailscale(
  root: string,
  initial: Partial<FakeTailnet> = {},
): FakeTailscale {
  const bin = join(root, 'tailscale-bin');
  const dir = join(root, 'tailscale-state');
  mkdirSync(bin, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const program = join(bin, 'tailscale');
  writeFileSync(program, `#!${process.execPath}\n${SCRIPT}`);
  chmodSync(program, 0o755);
  let state: FakeTailnet = { ...DEFAULTS, ...initial };
  const save = () => writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  save();
  return {
    bin,
    env: { FAKE_TAILSCALE_DIR: dir },
    set(changes) {
      state = { ...state, ...changes };
      save();
    },
    calls: () =>
      existsSync(join(dir, 'calls'))
        ? readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean)
        : [],
    serveConfig: () =>
      existsSync(join(dir, 'serve.json'))
        ? z
            .record(z.string(), z.unknown())
            .parse(JSON.parse(readFileSync(join(dir, 'serve.json'), 'utf8')))
        : {},
    setServeConfig: (config) => writeFileSync(join(dir, 'serve.json'), JSON.stringify(config)),
  };
}
