/**
 * `tether start --https`: the local CA and server certificate (fields checked with
 * node:crypto), HTTPS and wss trusting only that CA, `/ca.pem` and `/ca.mobileconfig`,
 * the local commands over HTTPS, and the certificate reused across restarts and
 * re-issued when it nears its end.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { get, request as httpsRequest } from 'node:https';
import { networkInterfaces } from 'node:os';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHost, type RunningHost } from '../../host/cli/start-host.js';
import { issueServerCertificate } from '../../host/tls/certificates.js';
import { loadOrCreateLocalTls, localHostName, serverNames } from '../../host/tls/index.js';
import { MAX_SERVER_VALIDITY_DAYS, tlsDir } from '../../host/tls/testing.js';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { runTether } from '../cli/run-cli.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const DAY_MS = 24 * 60 * 60 * 1000;
let rootDir: TempDir;
let root: string;
let dataDir: string;
let host: RunningHost;
let caPem: string;

const AdminFile = z.object({ url: z.string(), token: z.string(), ca: z.string() });

function start(): Promise<RunningHost> {
  return startHost(
    ['--data', dataDir, '--port', '0', '--workspace', join(root, 'ws'), '--https'],
    () => undefined,
  );
}

/** GET over HTTPS trusting only `ca`. */
function httpsGet(
  url: string,
  ca: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }),
      );
    }).on('error', reject);
  });
}

beforeAll(async () => {
  rootDir = tempDir('tether-https-', { realpath: false });
  root = rootDir.path;
  dataDir = join(root, 'data');
  mkdirSync(join(root, 'ws'));
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = 'warn';
  host = await start();
  caPem = readFileSync(join(tlsDir(dataDir), 'ca.pem'), 'utf8');
});

afterAll(async () => {
  await host?.stop();
  rootDir.remove();
});

describe('the local CA and server certificate', () => {
  it('are a CA limited to local names and a server certificate it signed', () => {
    const ca = new X509Certificate(caPem);
    const cert = new X509Certificate(readFileSync(join(tlsDir(dataDir), 'server.pem'), 'utf8'));
    expect(ca.ca).toBe(true);
    expect(ca.subject).toMatch(/CN=Tether Local CA /);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.issuer).toBe(ca.subject);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const san = cert.subjectAltName ?? '';
    expect(san).toContain(`DNS:${localHostName().toLowerCase()}.local`);
    expect(san).toContain('DNS:localhost');
    expect(san).toContain('IP Address:127.0.0.1');
    expect(san).toContain('IP Address:0:0:0:0:0:0:0:1');
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / DAY_MS;
    expect(days).toBeLessThanOrEqual(MAX_SERVER_VALIDITY_DAYS);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    for (const file of ['ca.key.pem', 'server.key.pem']) {
      expect(statSync(join(tlsDir(dataDir), file)).mode & 0o777).toBe(0o600);
    }
  });

  it('name every private LAN address of this machine, IPv4 ones checked by their ranges here', () => {
    const san = new X509Certificate(readFileSync(join(tlsDir(dataDir), 'server.pem'), 'utf8'))
      .subjectAltName;
    const lan = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
      .map((address) => address!.address)
      .filter((ip) => /^(10\.|192\.168\.|169\.254\.|172\.(1[6-9]|2\d|3[01])\.)/.test(ip));
    for (const ip of lan) expect(san).toContain(`IP Address:${ip}`);
  });

  it('are refused, by a TLS client trusting the CA, for names outside its name constraints', async () => {
    const dir = tlsDir(dataDir);
    const ca = {
      key: createPrivateKey(readFileSync(join(dir, 'ca.key.pem'))),
      cert: new X509Certificate(caPem),
    };
    // The CA's own key, as a thief would use it: for a public name, and for a .local one.
    const verdict = async (names: { dns: string[]; ips: string[] }) => {
      const issued = issueServerCertificate(names, ca);
      const server = createTlsServer({ key: issued.keyPem, cert: issued.certPem }, (socket) =>
        socket.end(),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      try {
        return await new Promise<string>((resolve) => {
          const socket = tlsConnect({
            port,
            host: '127.0.0.1',
            ca: caPem,
            checkServerIdentity: () => undefined,
          });
          socket.once('secureConnect', () => {
            socket.destroy();
            resolve('trusted');
          });
          socket.once('error', (error: NodeJS.ErrnoException) =>
            resolve(`${error.code}: ${error.message}`),
          );
        });
      } finally {
        server.close();
      }
    };
    expect(await verdict({ dns: ['tether-test.local'], ips: ['192.168.1.20'] })).toBe('trusted');
    expect(await verdict({ dns: ['bank.example.com'], ips: [] })).toMatch(
      /permitted subtree violation/,
    );
    expect(await verdict({ dns: [], ips: ['8.8.8.8'] })).toMatch(/permitted subtree violation/);
  });

  it('serve /v1/health over HTTPS to a client trusting only the CA', async () => {
    expect(host.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await httpsGet(`${host.url}/v1/health`, caPem);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, protocol: 1 });
    const localhost = host.url.replace('127.0.0.1', 'localhost');
    expect((await httpsGet(`${localhost}/v1/health`, caPem)).status).toBe(200);
    await expect(httpsGet(`${host.url}/v1/health`, '')).rejects.toThrow();
  });

  it('offer the CA as /ca.pem and as an iOS profile at /ca.mobileconfig', async () => {
    const pem = await httpsGet(`${host.url}/ca.pem`, caPem);
    expect(pem.status).toBe(200);
    expect(pem.headers['content-type']).toBe('application/x-pem-file');
    expect(pem.body).toBe(caPem);
    const profile = await httpsGet(`${host.url}/ca.mobileconfig`, caPem);
    expect(profile.status).toBe(200);
    expect(profile.headers['content-type']).toBe('application/x-apple-aspen-config');
    const der = new X509Certificate(caPem).raw.toString('base64');
    const data = /<data>([\s\S]*?)<\/data>/.exec(profile.body)?.[1]?.replace(/\s/g, '');
    expect(data).toBe(der);
    expect(profile.body).toContain('<string>com.apple.security.root</string>');
    expect(profile.body.match(/<key>PayloadUUID<\/key>/g)).toHaveLength(2);
    expect((await httpsGet(`${host.url}/ca.mobileconfig`, caPem)).body).toBe(profile.body);
  });

  it('carry a channel over wss: pair, open, ask host.info', async () => {
    await using clients = tempDir('tether-https-client-', { realpath: false });
    const client = new TetherClient({
      storage: new FileStorage(join(clients.path, 'client.json')),
      socketFactory: nodeWebSocketFactory({ ca: caPem }),
    });
    try {
      const admin = AdminFile.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
      expect(admin.url.startsWith('https://127.0.0.1:')).toBe(true);
      expect(admin.ca).toBe(caPem);
      const offer = await new Promise<string>((resolve, reject) => {
        const request = new URL(`${admin.url}/admin/api/offers`);
        const outgoing = httpsRequest(
          request,
          {
            method: 'POST',
            ca: caPem,
            headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          },
          (incoming) => {
            let body = '';
            incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
            incoming.on('end', () =>
              resolve(z.object({ link: z.string() }).parse(JSON.parse(body)).link),
            );
          },
        );
        outgoing.on('error', reject);
        outgoing.end('{"origin":"' + host.url + '"}');
      });
      const paired = await client.pair(offer, { name: 'wss test', platform: 'node' });
      const connection = await client.connect(paired.hostId);
      const info = await connection.request('host.info', {});
      expect(info.hostId).toBe(paired.hostId);
    } finally {
      await client.close();
    }
  });

  it('let the local commands reach the admin API over HTTPS through the CA', async () => {
    const result = await runTether(['devices', '--data', dataDir, '--json'], root);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ devices: [{ name: 'wss test' }] });
  });

  it('are reused across restarts and re-issued when near their end or the names change', async () => {
    const before = readFileSync(join(tlsDir(dataDir), 'server.pem'), 'utf8');
    await host.stop();
    host = await start();
    expect(readFileSync(join(tlsDir(dataDir), 'server.pem'), 'utf8')).toBe(before);
    expect(readFileSync(join(tlsDir(dataDir), 'ca.pem'), 'utf8')).toBe(caPem);

    const names = serverNames();
    const soon = new Date(Date.now() + 800 * DAY_MS);
    const renewed = loadOrCreateLocalTls({ dataDir, names, hostName: 'test', now: soon });
    expect(renewed).toMatchObject({ caCreated: false, serverIssued: true });
    expect(renewed.cert).not.toBe(before);
    expect(Date.parse(new X509Certificate(renewed.cert).validTo)).toBeGreaterThan(soon.getTime());

    const moved = loadOrCreateLocalTls({
      dataDir,
      names: { dns: names.dns, ips: [...names.ips, '192.168.77.7'] },
      hostName: 'test',
    });
    expect(moved).toMatchObject({ caCreated: false, serverIssued: true });
    expect(new X509Certificate(moved.cert).checkIP('192.168.77.7')).toBe('192.168.77.7');
    const same = loadOrCreateLocalTls({
      dataDir,
      names: { dns: names.dns, ips: [...names.ips, '192.168.77.7'] },
      hostName: 'test',
    });
    expect(same).toMatchObject({ caCreated: false, serverIssued: false, cert: moved.cert });
  });
});
