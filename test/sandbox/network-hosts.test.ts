/**
 * A sandbox allowed only some hosts (host/sandbox/network-proxy.ts, network-bridge.ts): a
 * real process in this machine's bubblewrap, without network, reaches a listed host on
 * the host's loopback only through the host's proxy, by the name it was listed under, and
 * nothing else: not another port, not the same port by another name, not directly.
 */
import { type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hostAllowed, parseHostPattern } from '../../host/sandbox/network-hosts.js';
import { spawnWrapped } from '../../host/sandbox/index.js';
import { machineSandbox, machineSandboxStatus } from '../support/sandbox.js';
import { tempDir } from '../support/temp-dir.js';

const bwrap = machineSandboxStatus.available && machineSandboxStatus.kind === 'bwrap';

describe('host patterns', () => {
  const patterns = ['api.example.com', '*.example.org', 'svc.example.net:8443', '10.0.0.7'].map(
    (text) => parseHostPattern(text)!,
  );

  it('match the name asked for, its port, and names below a star', () => {
    expect(hostAllowed(patterns, 'api.example.com', 443)).toBe(true);
    expect(hostAllowed(patterns, 'API.Example.COM.', 443)).toBe(true);
    // Plain HTTP only where a port says so.
    expect(hostAllowed(patterns, 'api.example.com', 80)).toBe(false);
    expect(hostAllowed(patterns, 'api.example.com', 22)).toBe(false);
    expect(hostAllowed(patterns, 'evil-api.example.com', 443)).toBe(false);
    expect(hostAllowed(patterns, 'api.example.com.evil.test', 443)).toBe(false);
    expect(hostAllowed(patterns, 'a.b.example.org', 443)).toBe(true);
    expect(hostAllowed(patterns, 'example.org', 443)).toBe(false);
    expect(hostAllowed(patterns, 'svc.example.net', 8443)).toBe(true);
    expect(hostAllowed(patterns, 'svc.example.net', 443)).toBe(false);
    expect(hostAllowed(patterns, '10.0.0.7', 443)).toBe(true);
    expect(hostAllowed(patterns, '10.0.0.8', 443)).toBe(false);
  });

  it('refuse what is not a host: a whole top-level domain, a path, a bad port, a URL, a part address', () => {
    const refused = ['*.com', '*', 'a/b', 'host:0', 'host:65536', 'https://a.b', '', 'a..b'];
    // The resolver reads `127.1` and `*.0.1`'s `127.0.1` as 127.0.0.1.
    refused.push('127.1', '127.0.1', '*.0.1', '*.1.2.3', '2130706433', '256.1.1.1', '01.2.3.4');
    for (const text of refused) {
      expect(parseHostPattern(text), text).toBeNull();
    }
  });
});

describe.skipIf(!bwrap)('a bubblewrap sandbox allowed one host (needs bwrap)', () => {
  let listed: Server;
  let other: Server;
  const port = (server: Server) => (server.address() as AddressInfo).port;

  beforeAll(async () => {
    const answer = (name: string) =>
      createServer((request, response) => response.end(`${name} ${request.url ?? ''}`));
    listed = answer('listed');
    other = answer('other');
    await Promise.all(
      [listed, other].map(
        (server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
      ),
    );
  });

  afterAll(() => {
    listed.close();
    other.close();
  });

  /** What `script` (run by node inside the sandbox) printed, and its exit. */
  async function runInside(script: string, hosts: readonly string[]) {
    await using workspace = tempDir('tether-network-hosts-');
    const refused: string[] = [];
    const prepared = await machineSandbox().prepare(workspace.path, { hosts }, (target) =>
      refused.push(target),
    );
    try {
      const wrapped = prepared.wrap([process.execPath, '-e', script], workspace.path);
      const child: ChildProcess = spawnWrapped(wrapped, {
        cwd: workspace.path,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdin: 'ignore',
      });
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { out, err, code, refused, proxy: prepared.plan };
    } finally {
      prepared.finish();
    }
  }

  it('reaches it through the proxy by its listed name, and nothing else', async () => {
    const a = port(listed);
    const b = port(other);
    // Each attempt prints one line: what came back, or the error's code.
    const script = `
      const net = require('node:net');
      const proxy = new URL(process.env.HTTPS_PROXY);
      const lines = [];
      const tunnel = (target) => new Promise((resolve) => {
        const socket = net.connect(Number(proxy.port), proxy.hostname);
        let got = '';
        socket.on('connect', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nhost: ' + target + '\\r\\n\\r\\n'));
        socket.on('data', (data) => {
          got += data;
          if (got.startsWith('HTTP/1.1 200') && got.endsWith('\\r\\n\\r\\n')) {
            got = '';
            socket.write('GET /tunnel HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n');
          }
        });
        socket.on('error', (error) => resolve(error.code));
        socket.on('close', () => resolve(got.split('\\r\\n')[0] + ' | ' + got.split('\\r\\n\\r\\n').pop()));
      });
      // By hand: Node 24 would send http.get's absolute path through the proxy itself.
      const plain = (url) => new Promise((resolve) => {
        const socket = net.connect(Number(proxy.port), proxy.hostname);
        let got = '';
        socket.on('connect', () => socket.write('GET ' + url + ' HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n'));
        socket.on('data', (data) => (got += data));
        socket.on('error', (error) => resolve(error.code));
        socket.on('close', () => resolve(got.split(' ')[1] + ' | ' + got.split('\\r\\n\\r\\n').pop()));
      });
      // Node 24 and later: its own fetch goes through the proxy its environment names.
      const fetched = () => Number(process.versions.node.split('.')[0]) < 24
        ? Promise.resolve('listed /fetch')
        : fetch('http://localhost:${a}/fetch').then((r) => r.text(), (e) => String(e.cause?.code ?? e));
      const direct = () => new Promise((resolve) => {
        net.connect(${a}, '127.0.0.1').on('connect', () => resolve('connected')).on('error', (e) => resolve(e.code));
      });
      (async () => {
        lines.push(await tunnel('localhost:${a}'));
        lines.push(await plain('http://localhost:${a}/plain'));
        lines.push(await tunnel('localhost:${b}'));
        lines.push(await tunnel('127.0.0.1:${a}'));
        lines.push(await plain('http://localhost:${b}/plain'));
        lines.push(await direct());
        lines.push(await fetched());
        console.log(JSON.stringify(lines));
        process.exit(7);
      })();
    `;
    const result = await runInside(script, [`localhost:${a}`]);
    expect(result.err).toBe('');
    // The command's own exit code comes through the bridge.
    expect(result.code).toBe(7);
    expect(result.proxy.network).toBe(false);
    const lines = z.array(z.string()).parse(JSON.parse(result.out));
    expect(lines[0]).toMatch(/^HTTP\/1\.1 200 OK \| listed \/tunnel$/);
    expect(lines[1]).toBe('200 | listed /plain');
    expect(lines[2]).toMatch(/^HTTP\/1\.1 403 Forbidden \| tether: this sandbox may not reach/);
    expect(lines[3]).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(lines[4]).toMatch(/^403 \| tether: this sandbox may not reach localhost:\d+/);
    // No way around the proxy: the sandbox's loopback is its own.
    expect(lines[5]).toBe('ECONNREFUSED');
    expect(lines[6]).toBe('listed /fetch');
    expect(result.refused).toEqual([`localhost:${b}`, `127.0.0.1:${a}`, `localhost:${b}`]);
  }, 60_000);

  it('with an empty list, has no proxy and no network', async () => {
    const result = await runInside(
      `console.log(JSON.stringify([process.env.HTTPS_PROXY ?? null])); require('node:net').connect(${port(listed)}, '127.0.0.1').on('error', (e) => { console.log(e.code); process.exit(0); })`,
      [],
    );
    expect(result.out.split('\n').slice(0, 2)).toEqual(['[null]', 'ECONNREFUSED']);
    expect(result.proxy.proxyPort).toBeNull();
  }, 60_000);
});
