/**
 * `/admin` answers only this computer: a loopback peer, a loopback `Host`, this start's token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../host/store/index.js';
import { Runtime } from '../../host/runtime/index.js';
import { readAdminFile } from '../../host/server/index.js';
import { createHttpApp } from '../../host/server/testing.js';
import { createIdentity } from '../../pairing/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir } from '../support/temp-dir.js';

let host: HostProcess;

beforeAll(async () => {
  host = await startHostProcess();
});

afterAll(async () => host.dispose());

describe('the admin surface', () => {
  it('refuses a missing or wrong token with 401', async () => {
    const port = new URL(host.url).port;
    const missing = await fetch(`http://127.0.0.1:${port}/admin/api/devices`);
    expect(missing.status).toBe(401);
    const wrong = await fetch(`http://127.0.0.1:${port}/admin/api/devices`, {
      headers: { authorization: 'Bearer ' + 'A'.repeat(43) },
    });
    expect(wrong.status).toBe(401);
    const right = await host.admin('GET', '/admin/api/devices');
    expect(right.status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403, even with the token', async () => {
    const { request } = await import('node:http');
    const port = Number(new URL(host.url).port);
    const token = readAdminFile(host.dataDir)!;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/admin/api/devices',
          headers: { host: `evil.example:${port}`, authorization: `Bearer ${token.token}` },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('serves the page shell with a strict CSP and no inline script', async () => {
    const response = await fetch(`${host.url}/admin`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await response.text();
    expect(html).toContain('<script src="/admin/admin.js"></script>');
    expect(html).not.toMatch(/<script>(?!<)/);
  });

  it('refuses a peer that is not on this computer with 403', async () => {
    await using temp = tempDir('tether-admin-', { realpath: false });
    const dataDir = temp.path;
    const store = await Store.open({ dataDir });
    const runtime = new Runtime(store, { model: null, workspaces: [{ name: 'w', path: dataDir }] });
    const identity = createIdentity();
    const token = 'T'.repeat(43);
    const app = createHttpApp({
      hostId: identity.id,
      version: 'test',
      admin: {
        runtime,
        identity,
        token,
        port: () => 8787,
        defaultOrigin: () => 'http://127.0.0.1:8787',
        closeDeviceSockets: () => undefined,
      },
    });
    const ask = (remoteAddress: string) =>
      app.request(
        '/admin/api/devices',
        { headers: { host: '127.0.0.1:8787', authorization: `Bearer ${token}` } },
        { incoming: { socket: { remoteAddress } } },
      );
    expect((await ask('192.0.2.10')).status).toBe(403);
    expect((await ask('::ffff:198.51.100.1')).status).toBe(403);
    expect((await ask('127.0.0.1')).status).toBe(200);
    expect((await ask('::1')).status).toBe(200);
    store.close();
  });

  it('makes offers that expire and lists them as pending until used', async () => {
    const offer = await host.offer();
    expect(offer.link).toMatch(new RegExp(`^${host.url}/#pair=[A-Za-z0-9_-]{107}$`));
    const status = (await (
      await host.admin('GET', `/admin/api/offers/${offer.offerId}`)
    ).json()) as { state: string };
    expect(status.state).toBe('pending');
    const bad = await host.admin('POST', '/admin/api/offers', { origin: 'not a url' });
    expect(bad.status).toBe(400);
  });
});
