/**
 * `tether pair`, `tether devices` and `tether revoke` as child processes against the real
 * host process: the docs/protocol.md §9 contract of `pair --json`, the human pairing flow with its
 * SAS, revocation, the error when no host runs, and strict flags.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Device } from '../../protocol/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether, startTether } from './run-cli.js';

const tetherBin = new URL('../../bin/tether.js', import.meta.url).pathname;
let host: HostProcess;
let homeDir: TempDir;
let home: string;

const PairJson = z.strictObject({
  link: z.string(),
  offerId: z.string(),
  expiresAt: z.number().int(),
});
const OfferStatus = z.looseObject({ state: z.string(), sas: z.string().optional() });
const DevicesJson = z.strictObject({ devices: z.array(Device) });

beforeAll(async () => {
  host = await startHostProcess();
  homeDir = tempDir('tether-cli-home-', { realpath: false });
  home = homeDir.path;
});

afterAll(async () => {
  await host.dispose();
  homeDir.remove();
});

/** The SAS `tether remote pair` printed, digits only. */
function remoteSas(stdout: string): string {
  const match = /same code: (\d{3}) (\d{3})/.exec(stdout);
  if (match === null) throw new Error(`no SAS in:\n${stdout}`);
  return match[1]! + match[2]!;
}

async function devices(): Promise<Device[]> {
  const result = await runTether(['devices', '--data', host.dataDir, '--json'], home);
  expect(result.code).toBe(0);
  return DevicesJson.parse(JSON.parse(result.stdout)).devices;
}

describe('tether pair', () => {
  it('--json prints exactly one line {link, offerId, expiresAt} whose link pairs', async () => {
    const before = Date.now();
    const result = await runTether(['pair', '--data', host.dataDir, '--json'], home);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const offer = PairJson.parse(JSON.parse(result.stdout));
    expect(offer.link.startsWith(`${host.url}/#pair=`)).toBe(true);
    expect(offer.expiresAt).toBeGreaterThan(before);

    const state = join(home, 'phone.json');
    const paired = await runTether(
      ['remote', 'pair', offer.link, '--state', state, '--name', 'Test phone'],
      home,
    );
    expect(paired.code).toBe(0);
    const status = OfferStatus.parse(
      await (await host.admin('GET', `/admin/api/offers/${offer.offerId}`)).json(),
    );
    expect(status).toMatchObject({ state: 'paired', sas: remoteSas(paired.stdout) });
  });

  it('shows a QR code and the link, waits for the device, then prints its name and the SAS', async () => {
    const pairing = startTether(['pair', '--data', host.dataDir], home);
    const [, link] = await pairing.waitFor(/^ {2}(http:\/\/\S+\/#pair=\S+)$/m);
    await pairing.waitFor(/expires at \d\d:\d\d:\d\d \(in 1\d\d s\)\. Waiting for a device/);
    expect(pairing.stdout()).toMatch(/[█▀▄]{20}/);

    const paired = await runTether(
      ['remote', 'pair', link!, '--state', join(home, 'laptop.json'), '--name', 'Laptop'],
      home,
    );
    expect(paired.code).toBe(0);
    const result = await pairing.exit;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Paired with Laptop (cli-${process.platform}).`);
    const sas = remoteSas(paired.stdout);
    expect(result.stdout).toContain(`same code: ${sas.slice(0, 3)} ${sas.slice(3)}`);
  });
});

describe('tether devices and tether revoke', () => {
  it('lists a paired device, revokes it, and the device is refused from then on', async () => {
    const state = join(home, 'tablet.json');
    const offer = await host.offer();
    expect(
      (await runTether(['remote', 'pair', offer.link, '--state', state, '--name', 'Tablet'], home))
        .code,
    ).toBe(0);
    const tablet = (await devices()).find((device) => device.name === 'Tablet');
    expect(tablet).toMatchObject({ revoked: false, platform: `cli-${process.platform}` });

    // The data directory from TETHER_DATA_DIR, as `tether start` reads it.
    const table = await runTether(['devices'], home, { TETHER_DATA_DIR: host.dataDir });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^NAME +PLATFORM +PAIRED +LAST SEEN +REVOKED +PUSH +LAST PUSH +PUSH ERROR +DEVICE ID$/m,
    );
    // Not subscribed to pushes: off, never delivered, no error.
    expect(table.stdout).toMatch(
      new RegExp(`^Tablet +cli-${process.platform} .* +off +never +- +${tablet!.deviceId}$`, 'm'),
    );

    const revoked = await runTether(['revoke', tablet!.deviceId, '--data', host.dataDir], home);
    expect(revoked).toMatchObject({
      code: 0,
      stdout: `Revoked Tablet (${tablet!.deviceId}); its connections are closed.\n`,
    });
    expect((await devices()).find((device) => device.name === 'Tablet')?.revoked).toBe(true);

    const refused = await runTether(['remote', 'runs', '--state', state], home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('revoked this device');
    expect(refused.stderr).toContain('[device_revoked]');
  });

  it('refuses to revoke a device that is not paired, even one whose id starts with a dash', async () => {
    const id = '-AAAAAAAAAAAAAAAAAAAAA';
    const result = await runTether(['revoke', id, '--data', host.dataDir], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`tether: no device ${id} is paired (tether devices lists them)\n`);
  });
});

describe('with no host running', () => {
  const noHost = (dir: string) => `tether: no Tether host is running for data dir ${dir}`;

  it('says so when the data directory has no admin file', async () => {
    await using data = tempDir('tether-nohost-', { realpath: false });
    const dir = data.path;
    const commands = [['pair', '--json'], ['devices'], ['revoke', 'AAAAAAAAAAAAAAAAAAAAAA']];
    const results = await Promise.all(
      commands.map((args) => runTether([...args, '--data', dir], home)),
    );
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(noHost(dir));
      // The first `tether` on this PATH is not this clone: the hint names it by its full path.
      expect(result.stderr).toContain(`start one with: node '${tetherBin}' start`);
      expect(result.stdout).toBe('');
    }
  });

  it('says so when the admin file names a dead process, or nothing listens', async () => {
    await using data = tempDir('tether-nohost-', { realpath: false });
    const dir = data.path;
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const admin = (pid: number) =>
      writeFileSync(
        join(dir, 'admin.json'),
        JSON.stringify({
          url: `http://127.0.0.1:${closed}`,
          token: 't'.repeat(43),
          pid,
          instance: 'ins_x',
        }),
      );
    admin(dead);
    const gone = await runTether(['devices', '--data', dir], home);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`${noHost(dir)} (process ${dead} is gone)`);
    admin(process.pid);
    const silent = await runTether(['pair', '--data', dir], home);
    expect(silent.code).toBe(1);
    expect(silent.stderr).toContain(
      `${noHost(dir)} (nothing answers at http://127.0.0.1:${closed})`,
    );
  });
});

describe('tether devices rename', () => {
  it('renames a device by its id or its name; a bad name exits 1 and changes nothing', async () => {
    const offer = await host.offer();
    const state = join(home, 'desk.json');
    const paired = await runTether(
      ['remote', 'pair', offer.link, '--state', state, '--name', 'Desk'],
      home,
    );
    expect(paired.code).toBe(0);
    const desk = (await devices()).find((device) => device.name === 'Desk')!;

    const byId = await runTether(
      ['devices', 'rename', desk.deviceId, 'Desk Mac', '--data', host.dataDir],
      home,
    );
    expect(byId).toMatchObject({
      code: 0,
      stdout: `Renamed Desk to Desk Mac (${desk.deviceId}).\n`,
    });
    const byName = await runTether(
      ['devices', 'rename', 'Desk Mac', 'Studio', '--data', host.dataDir],
      home,
    );
    expect(byName.code).toBe(0);
    expect((await devices()).find((d) => d.deviceId === desk.deviceId)?.name).toBe('Studio');

    const bad = await runTether(
      ['devices', 'rename', desk.deviceId, 'two\nlines', '--data', host.dataDir],
      home,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('the name "two\\nlines" is refused: expected no control');
    expect((await devices()).find((d) => d.deviceId === desk.deviceId)?.name).toBe('Studio');
  });
});

describe('flags', () => {
  it.concurrent.for([
    [['pair', '--bogus'], 'tether pair: unknown option --bogus', 'Usage: tether pair'],
    [
      ['pair', '--data'],
      "tether pair: Option '--data <value>' argument missing",
      'Usage: tether pair',
    ],
    [['devices', 'extra'], 'tether devices: unexpected argument extra', 'Usage: tether devices'],
    [['devices', 'rename'], 'tether devices: missing <device> <name>', 'Usage: tether devices'],
    [['devices', 'rename', 'a'], 'tether devices: missing <name>', 'Usage: tether devices'],
    [['revoke'], 'tether revoke: missing <deviceId>', 'Usage: tether revoke'],
    [['revoke', 'a', 'b'], 'tether revoke: unexpected argument b', 'Usage: tether revoke'],
    [['frobnicate'], 'tether: unknown command frobnicate', 'Usage: tether <command>'],
  ] as const)('%j exits 2 with the usage', async ([args, message, usage], { expect }) => {
    const result = await runTether(args, home);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stderr).toContain(usage);
  });

  it('--help prints the command usage and exits 0', async () => {
    const result = await runTether(['pair', '--help'], home);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'Usage: tether pair [--data DIR] [--json [--wait]] [--origin URL]',
    );
  });
});
