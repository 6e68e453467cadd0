/**
 * Issue 14's rough edges, each by the message a new user sees: a `.local` link that does
 * not resolve, a refused connection, a used pairing link, hints that name `tether` as it
 * is installed (`npm link`), and the start banner (usable URLs, the loopback warning,
 * human lines on the terminal and JSON only with `--log-format json`).
 */
import { lookup } from 'node:dns/promises';
import { mkdirSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether, startTether } from './run-cli.js';

const tetherBin = new URL('../../bin/tether.js', import.meta.url).pathname;
let host: HostProcess;
let home: TempDir;

beforeAll(async () => {
  host = await startHostProcess();
  home = tempDir('tether-issue14-', { realpath: false });
});

afterAll(async () => {
  await host.dispose();
  home.remove();
});

/** A port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('a link the remote cannot reach', () => {
  it('names the .local host that did not resolve, says DNS, and suggests --origin', async () => {
    const link = await host.pairLink('http://tether-issue14-nowhere.local:8787');
    const result = await runTether(
      ['remote', 'pair', link, '--state', join(home.path, 'dns.json')],
      home.path,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('1006');
    expect(result.stderr).toContain(
      'cannot reach http://tether-issue14-nowhere.local:8787: DNS: the name tether-issue14-nowhere.local does not resolve',
    );
    expect(result.stderr).toContain(`pair --origin http://<the host's LAN address>:8787`);
  });

  it('says the connection was refused, and to check the host runs', async () => {
    const port = await closedPort();
    const link = await host.pairLink(`http://127.0.0.1:${port}`);
    const result = await runTether(
      ['remote', 'pair', link, '--state', join(home.path, 'refused.json')],
      home.path,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `cannot reach http://127.0.0.1:${port}: refused: nothing answers at that address and port (ECONNREFUSED)`,
    );
    expect(result.stderr).toContain('check that the host is running');
  });
  it('says TLS when an https link meets a host that serves plain HTTP', async () => {
    const port = new URL(host.url).port;
    const link = await host.pairLink(`https://127.0.0.1:${port}`);
    const result = await runTether(
      ['remote', 'pair', link, '--state', join(home.path, 'tls.json')],
      home.path,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `cannot reach https://127.0.0.1:${port}: TLS: the secure connection failed (EPROTO): the certificate is not trusted or does not match, or the host serves plain HTTP; trust the host's CA (docs/https.md) or use its http:// address`,
    );
  });
});

describe('a pairing link that no longer works', () => {
  it('says to run tether pair for a new link when the link was used already', async () => {
    const link = await host.pairLink();
    const first = await runTether(
      ['remote', 'pair', link, '--state', join(home.path, 'first.json')],
      home.path,
    );
    expect(first.code).toBe(0);
    const again = await runTether(
      ['remote', 'pair', link, '--state', join(home.path, 'second.json')],
      home.path,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `tether remote pair: pairing failed: this link was used already; a link pairs one device only: for a new link, run on the host: node '${tetherBin}' pair [pair_failed]\n`,
    );
  });
});

describe('tether pair and the data directory', () => {
  it('says which data directory the host it asks runs on', async () => {
    const pairing = startTether(['pair', '--data', host.dataDir], home.path);
    await pairing.waitFor(/Waiting for a device/);
    expect(pairing.stdout()).toContain(`The host running on ${host.dataDir} offers this link.`);
    pairing.signal('SIGINT');
    await pairing.exit;
  });

  it('names the demo data directory beside the one asked when only the demo host runs', async () => {
    await using dir = tempDir('tether-demo-dir-');
    const demo = await startHostProcess({ dataDir: join(dir.path, 'demo') });
    try {
      const result = await runTether(['pair', '--data', dir.path], home.path);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `no Tether host is running for data dir ${dir.path} (no admin.json); a host is running for ${demo.dataDir}: pass --data '${demo.dataDir}'`,
      );
    } finally {
      await demo.dispose();
    }
  });

  it('--json --wait prints the offer, then the SAS the host shows once a device paired', async () => {
    const pairing = startTether(['pair', '--data', host.dataDir, '--json', '--wait'], home.path);
    const [line] = await pairing.waitFor(/^\{.*\}$/m);
    const offer = z.looseObject({ link: z.string() }).parse(JSON.parse(line));
    const paired = await runTether(
      ['remote', 'pair', offer.link, '--state', join(home.path, 'waited.json')],
      home.path,
    );
    expect(paired.code).toBe(0);
    const result = await pairing.exit;
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const outcome = z
      .strictObject({
        state: z.literal('paired'),
        sas: z.string().regex(/^\d{6}$/),
        device: z.looseObject({ name: z.string() }),
      })
      .parse(JSON.parse(lines[1] ?? ''));
    const shown = /same code: (\d{3}) (\d{3})/.exec(paired.stdout);
    expect(outcome.sas).toBe(`${shown?.[1]}${shown?.[2]}`);
  });
});

describe('submit refused for its workspace or model', () => {
  it('says so in a sentence and lists the valid values', async () => {
    const state = join(home.path, 'submitter.json');
    const paired = await runTether(
      ['remote', 'pair', await host.pairLink(), '--state', state],
      home.path,
    );
    expect(paired.code).toBe(0);
    const workspace = await runTether(
      ['remote', 'submit', 'hi', '--workspace', '/nowhere', '--state', state],
      home.path,
    );
    expect(workspace.code).toBe(1);
    expect(workspace.stderr).toBe(
      `tether remote submit: The host does not allow the workspace /nowhere. Its workspaces are workspace (${host.workspace}): pass one of them with --workspace, by name or path. [workspace_denied]\n`,
    );
    // A host with a model (the demo's) refuses another one.
    await using demo = await startHostProcess({ args: ['--demo'] });
    const demoState = join(home.path, 'demo-submitter.json');
    const demoPaired = await runTether(
      ['remote', 'pair', await demo.pairLink(), '--state', demoState],
      home.path,
    );
    expect(demoPaired.code).toBe(0);
    const model = await runTether(
      ['remote', 'submit', 'hi', '--model', 'nonesuch', '--state', demoState],
      home.path,
    );
    expect(model.code).toBe(1);
    expect(model.stderr).toBe(
      'tether remote submit: The host has no model nonesuch. Its models are tether-demo: pass one of them with --model, or leave --model out for its default. [invalid_request]\n',
    );
  });
});

describe('hints as installed', () => {
  it('say `tether …` when `tether` on PATH is this installation (npm link), the full path otherwise', async () => {
    const bin = join(home.path, 'linked-bin');
    mkdirSync(bin);
    symlinkSync(tetherBin, join(bin, 'tether'));
    const data = join(home.path, 'no-host');
    const linked = await runTether(['devices', '--data', data], home.path, {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    });
    expect(linked.stderr).toContain('start one with: tether start');
    const plain = await runTether(['devices', '--data', data], home.path);
    expect(plain.stderr).toContain(`start one with: node '${tetherBin}' start`);
  });
});

describe('the start banner', () => {
  it('bound to 0.0.0.0: a usable listening URL, LAN addresses and a .local name only where it resolves, never 0.0.0.0, no JSON', async () => {
    await using dir = tempDir('tether-banner-');
    const run = startTether(
      [
        'start',
        '--data',
        join(dir.path, 'data'),
        '--port',
        '0',
        '--bind',
        '0.0.0.0',
        '--workspace',
        dir.path,
      ],
      home.path,
      { TETHER_KEY_STORE: 'file' },
    );
    const [, port] = await run.waitFor(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
    const [network] = await run.waitFor(/^on your network: .*$/m);
    const origins = network.replace(/^on your network: /, '').split(', ');
    const lanAddresses = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.internal && entry.family === 'IPv4')
      .map((entry) => `http://${entry.address}:${port}`);
    expect(origins).toEqual(expect.arrayContaining(lanAddresses));
    // A name beside the addresses is one a phone could open: it resolves on this machine.
    for (const origin of origins.filter((each) => !lanAddresses.includes(each))) {
      expect(origin).toMatch(new RegExp(`^http://[^ ,]+\\.local:${port}$`));
      await expect(lookup(new URL(origin).hostname), origin).resolves.toBeDefined();
    }
    expect(run.stdout()).not.toContain('0.0.0.0');
    expect(run.stdout()).not.toMatch(/warning: bound to/);
    run.signal('SIGTERM');
    const result = await run.exit;
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('{"at":');
  });

  it('bound to loopback: warns that a phone cannot open the link; --log-format json shows the JSON log', async () => {
    await using dir = tempDir('tether-banner-');
    const run = startTether(
      [
        'start',
        '--data',
        join(dir.path, 'data'),
        '--port',
        '0',
        '--workspace',
        dir.path,
        '--log-format',
        'json',
      ],
      home.path,
      { TETHER_KEY_STORE: 'file' },
    );
    await run.waitFor(/^listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(run.stdout()).toMatch(
      /^warning: bound to 127\.0\.0\.1 only, so pairing links open on this computer alone, not on a phone: start with --bind 0\.0\.0\.0/m,
    );
    run.signal('SIGTERM');
    const result = await run.exit;
    expect(result.stderr).toContain('"msg":"listening"');
  });
});
