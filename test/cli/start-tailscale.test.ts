/**
 * Issue 24, "Reach from outside the LAN": the real built host started with `--tailscale`
 * against a fake `tailscale` on PATH that prints what the real one prints
 * (test/support/fake-tailscale.ts). It publishes the host with `tailscale serve --bg
 * --https=443 http://127.0.0.1:PORT`, pairing links name the ts.net origin, `doctor` checks
 * the proxy, a clean stop removes it and a crash leaves it for the next start. Each thing
 * that stands in the way (no Tailscale, its daemon down, logged out, MagicDNS or HTTPS
 * certificates off, no operator right, another service on the origin) stops the start
 * with a message that names the flag and what to run, and publishes nothing.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTether } from './run-cli.js';
import {
  writeFakeTailscale,
  type FakeTailnet,
  type FakeTailscale,
} from '../support/fake-tailscale.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const ORIGIN = 'https://mac.tail1234.ts.net';
const Check = z.object({
  id: z.string(),
  status: z.enum(['pass', 'warn', 'fail', 'skip']),
  detail: z.string(),
  fix: z.string().optional(),
});
const Report = z.object({ ok: z.boolean(), checks: z.array(Check) });

let root: TempDir;
beforeAll(() => {
  root = tempDir('tether-tailscale-');
});
afterAll(() => root.remove());

function fakeEnv(fake: FakeTailscale): Record<string, string> {
  return {
    PATH: `${fake.bin}:${process.env['PATH'] ?? ''}`,
    TETHER_KEY_STORE: 'file',
    ...fake.env,
  };
}

async function tailscaleCheck(dataDir: string, env: Record<string, string>) {
  const home = join(root.path, 'home');
  mkdirSync(home, { recursive: true });
  const result = await runTether(['doctor', '--data', dataDir, '--json'], home, env);
  const report = Report.parse(JSON.parse(result.stdout));
  const check = report.checks.find((entry) => entry.id === 'tailscale');
  if (check === undefined) throw new Error(`no tailscale check in ${result.stdout}`);
  return { check, report };
}

describe('tether start --tailscale', () => {
  let fake: FakeTailscale;
  let host: HostProcess;
  let port: string;

  beforeAll(async () => {
    fake = writeFakeTailscale(join(root.path, 'published'));
    host = await startHostProcess({ args: ['--tailscale'], env: fakeEnv(fake) });
    port = new URL(host.url).port;
  });
  afterAll(async () => {
    await host.dispose();
  });

  it('publishes the host with tailscale serve --bg on https and says where', () => {
    expect(fake.calls()).toContain(`serve --bg --https=443 http://127.0.0.1:${port}`);
    expect(fake.serveConfig()).toEqual({
      TCP: { '443': { HTTPS: true } },
      Web: {
        'mac.tail1234.ts.net:443': { Handlers: { '/': { Proxy: `http://127.0.0.1:${port}` } } },
      },
    });
    expect(host.output()).toContain(
      `tailnet: ${ORIGIN} → http://127.0.0.1:${port} (tailscale serve --bg;`,
    );
    // Published on the tailnet, a loopback bind is no longer a dead end for a phone.
    expect(host.output()).not.toContain('bound to 127.0.0.1 only');
  });

  it('makes tether pair name the ts.net origin in its link (and QR code)', async () => {
    const home = join(root.path, 'home');
    mkdirSync(home, { recursive: true });
    const json = await runTether(['pair', '--data', host.dataDir, '--json'], home, fakeEnv(fake));
    expect(json.code, json.stderr).toBe(0);
    const { link } = z.object({ link: z.string() }).parse(JSON.parse(json.stdout));
    expect(link.startsWith(`${ORIGIN}/#pair=`), link).toBe(true);
    // --origin still wins.
    const other = await runTether(
      ['pair', '--data', host.dataDir, '--json', '--origin', 'http://192.168.1.20:8787'],
      home,
      fakeEnv(fake),
    );
    const named = z.object({ link: z.string() }).parse(JSON.parse(other.stdout));
    expect(named.link).toMatch(/^http:\/\/192\.168\.1\.20:8787\/#pair=/);
  });

  it('passes doctor: the proxy names this port, MagicDNS and HTTPS certificates are on', async () => {
    const { check, report } = await tailscaleCheck(host.dataDir, fakeEnv(fake));
    expect(check).toEqual({
      id: 'tailscale',
      status: 'pass',
      detail: `${ORIGIN} → http://127.0.0.1:${port} (tailscale serve --bg; MagicDNS on, HTTPS certificates on)`,
    });
    // The ts.net origin is a secure one: push is not blocked on HTTPS.
    expect(report.checks.find((entry) => entry.id === 'push')?.detail).not.toContain(
      'needs the app on HTTPS',
    );
  });

  it('fails doctor when HTTPS certificates are turned off in the tailnet', async () => {
    fake.set({ https: false });
    try {
      const { check } = await tailscaleCheck(host.dataDir, fakeEnv(fake));
      expect(check.status).toBe('fail');
      expect(check.detail).toContain(
        `publishes this host at ${ORIGIN}, but HTTPS certificates are off`,
      );
      expect(check.fix).toContain('https://login.tailscale.com/admin/dns');
    } finally {
      fake.set({ https: true });
    }
  });

  it('fails doctor when the proxy was removed by hand, saying to restart the host', async () => {
    const saved = fake.serveConfig();
    fake.setServeConfig({});
    try {
      const { check } = await tailscaleCheck(host.dataDir, fakeEnv(fake));
      expect(check.status).toBe('fail');
      expect(check.detail).toContain(
        `started with --tailscale for ${ORIGIN}, but tailscale serve publishes nothing for port ${port}`,
      );
      expect(check.fix).toContain('service restart');
    } finally {
      fake.setServeConfig(saved);
    }
  });

  it('fails doctor when the origin proxies to another port', async () => {
    const saved = fake.serveConfig();
    fake.setServeConfig({
      TCP: { '443': { HTTPS: true } },
      Web: { 'mac.tail1234.ts.net:443': { Handlers: { '/': { Proxy: 'http://127.0.0.1:3000' } } } },
    });
    try {
      const { check } = await tailscaleCheck(host.dataDir, fakeEnv(fake));
      expect(check).toMatchObject({
        status: 'fail',
        detail: `tailscale serve publishes ${ORIGIN}/ to http://127.0.0.1:3000, not to this host's port ${port}`,
      });
      expect(check.fix).toContain('tailscale serve --https=443 off');
    } finally {
      fake.setServeConfig(saved);
    }
  });

  it('keeps the proxy after a crash (a --bg serve persists) and takes it over at the next start', async () => {
    await host.kill();
    expect(fake.serveConfig()).toHaveProperty(['Web', 'mac.tail1234.ts.net:443']);
    const before = fake.calls().filter((call) => call.startsWith('serve --bg')).length;
    await host.restart();
    expect(fake.calls().filter((call) => call.startsWith('serve --bg'))).toHaveLength(before);
    expect(host.output()).toContain('(tailscale serve --bg, in place from before;');
  });

  it('removes the proxy at a clean stop', async () => {
    expect(await host.stop()).toBe(0);
    expect(fake.calls()).toContain('serve --https=443 --set-path=/ off');
    expect(fake.serveConfig()).toEqual({});
  });
});

describe('tether start --tailscale refuses to start, naming the flag and what to run', () => {
  const cases: {
    name: string;
    tailnet: Partial<FakeTailnet> | 'not installed';
    serve?: Record<string, unknown>;
    says: string[];
  }[] = [
    {
      name: 'Tailscale not installed',
      tailnet: 'not installed',
      says: ['Tailscale is not installed', 'https://tailscale.com/download'],
    },
    {
      name: 'its daemon not running',
      tailnet: { daemon: false },
      says: [
        "tailscale status --json failed: failed to connect to local tailscaled; it doesn't appear to be running",
        'start Tailscale (open the Tailscale app, or sudo systemctl start tailscaled)',
      ],
    },
    {
      name: 'logged out',
      tailnet: { backendState: 'NeedsLogin' },
      says: [
        'Tailscale is logged out (NeedsLogin)',
        'sign in with tailscale up (or at https://login.tailscale.com/a/1a2b3c4d5e6f)',
      ],
    },
    {
      name: 'stopped',
      tailnet: { backendState: 'Stopped' },
      says: ['Tailscale is stopped', 'connect it with tailscale up'],
    },
    {
      name: 'MagicDNS off',
      tailnet: { magicDns: false },
      says: [
        'MagicDNS is off in this tailnet',
        'turn on MagicDNS at https://login.tailscale.com/admin/dns',
      ],
    },
    {
      name: 'HTTPS certificates off',
      tailnet: { https: false },
      says: [
        'HTTPS certificates are off in this tailnet (tailscale status --json lists no CertDomains), so tailscale serve cannot publish https://mac.tail1234.ts.net',
        'turn on HTTPS Certificates at https://login.tailscale.com/admin/dns (Enable HTTPS)',
      ],
    },
    {
      name: 'no operator right',
      tailnet: { operator: false },
      says: [
        'tailscale serve --bg --https=443 http://127.0.0.1:',
        'Access denied: serve config denied',
        "To not require root, use 'sudo tailscale set --operator=$USER' once.",
      ],
    },
    {
      name: 'another service on the origin',
      tailnet: {},
      serve: {
        TCP: { '443': { HTTPS: true } },
        Web: {
          'mac.tail1234.ts.net:443': { Handlers: { '/': { Proxy: 'http://127.0.0.1:3000' } } },
        },
      },
      says: [
        'tailscale serve already publishes https://mac.tail1234.ts.net/ to http://127.0.0.1:3000, not to this host',
        'free it with tailscale serve --https=443 off',
      ],
    },
  ];

  for (const { name, tailnet, serve, says } of cases) {
    it(name, async () => {
      const folder = join(root.path, name.replaceAll(' ', '-'));
      const fake = writeFakeTailscale(folder, tailnet === 'not installed' ? {} : tailnet);
      if (serve !== undefined) fake.setServeConfig(serve);
      const env =
        tailnet === 'not installed'
          ? { PATH: dirname(process.execPath), TETHER_KEY_STORE: 'file' }
          : fakeEnv(fake);
      const dataDir = join(folder, 'data');
      const workspace = join(folder, 'workspace');
      mkdirSync(workspace);
      const result = await runTether(
        ['start', '--data', dataDir, '--port', '0', '--workspace', workspace, '--tailscale'],
        folder,
        env,
      );
      expect(result.code).not.toBe(0);
      expect(result.stdout).not.toContain('listening on');
      const first = result.stderr.split('\n')[0] ?? '';
      expect(first).toMatch(/^tether: --tailscale: /);
      for (const words of says) expect(result.stderr).toContain(words);
      expect(first).toContain('start the host again (');
      expect(first).toContain('or leave out --tailscale (docs/https.md)');
      expect(existsSync(join(dataDir, 'admin.json'))).toBe(false);
      if (serve === undefined && tailnet !== 'not installed' && tailnet.operator !== false) {
        expect(fake.calls().filter((call) => call.startsWith('serve --bg'))).toEqual([]);
      }
      if (serve !== undefined) expect(fake.serveConfig()).toEqual(serve);
    });
  }
});

describe('tether doctor without --tailscale', () => {
  it('skips the check when Tailscale is not installed', async () => {
    const dataDir = join(root.path, 'doctor-skip', 'data');
    const { check } = await tailscaleCheck(dataDir, {
      PATH: dirname(process.execPath),
      TETHER_KEY_STORE: 'file',
    });
    expect(check.status).toBe('skip');
    expect(check.detail).toContain('Tailscale is not installed');
  });

  it('skips the check when Tailscale runs but does not publish this host, saying what would', async () => {
    const folder = join(root.path, 'doctor-unused');
    const fake = writeFakeTailscale(folder);
    const { check } = await tailscaleCheck(join(folder, 'data'), fakeEnv(fake));
    expect(check.status).toBe('skip');
    expect(check.detail).toContain(
      'Tailscale is running (MagicDNS on, HTTPS certificates on) but does not publish this host',
    );
    expect(check.detail).toContain(
      'start --tailscale would publish it at https://mac.tail1234.ts.net',
    );
  });
});
