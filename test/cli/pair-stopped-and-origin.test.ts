/**
 * Issue 24, `tether pair` through the built CLI and a real host: stopped by Ctrl-C
 * (SIGINT) or SIGTERM, it revokes the offer it made, so its link no longer pairs a device
 * (a browser paired ~50 s after the command was killed); and a host bound to every
 * address names an origin that resolves on this machine (a LAN address when the `.local`
 * name does not).
 */
import { lookup } from 'node:dns/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether, startTether } from './run-cli.js';

const OfferState = z.looseObject({ state: z.string() });

let host: HostProcess;
let home: TempDir;

beforeAll(async () => {
  host = await startHostProcess();
  home = tempDir('tether-issue24-pair-');
});

afterAll(async () => {
  await host.dispose();
  home.remove();
});

async function offerState(offerId: string): Promise<string> {
  const response = await host.admin('GET', `/admin/api/offers/${offerId}`);
  return OfferState.parse(await response.json()).state;
}

describe.each(['SIGINT', 'SIGTERM'] as const)('tether pair stopped by %s', (signal) => {
  it('revokes its offer: the link it showed no longer pairs a device', async () => {
    const run = startTether(['pair', '--data', host.dataDir], home.path);
    const [, link] = await run.waitFor(/open this link on it:\n {2}(\S+)\n/);
    await run.waitFor(/Waiting for a device/);
    const offerId = offerIdOf(link ?? '');
    expect(await offerState(offerId)).toBe('pending');

    run.signal(signal);
    const result = await run.exit;

    expect(result.code).toBe(130);
    expect(result.stderr).toContain('the offer is revoked: its link no longer pairs a device');
    expect(await offerState(offerId)).toBe('expired');
    const paired = await runTether(
      ['remote', 'pair', link ?? '', '--state', join(home.path, `${signal}.json`)],
      home.path,
    );
    expect(paired.code).toBe(1);
    expect(paired.stderr).toContain(
      'tether remote pair: pairing failed: this link expired; for a new link, run on the host: ',
    );
  });
});

/** The offer id of a pairing link: the first 16 bytes of its fragment (docs/protocol.md §3). */
function offerIdOf(link: string): string {
  const fragment = new URL(link).hash.replace(/^#pair=/, '');
  return Buffer.from(fragment, 'base64url').subarray(0, 16).toString('base64url');
}

describe('a host bound to every address', () => {
  it('names an origin in its links that resolves on this machine', async () => {
    await using lan = await startHostProcess({ args: ['--bind', '0.0.0.0'] });

    const { link } = await lan.offer();

    const { hostname, port } = new URL(link);
    expect(port).toBe(new URL(lan.url).port);
    const found = await lookup(hostname.replace(/^\[|\]$/g, ''), { all: true });
    expect(found.length, `${hostname} resolves`).toBeGreaterThan(0);
  });
});
