/**
 * Who holds a port, as `tether service status` and `doctor` name it when the host cannot
 * listen: a real listening socket of this process, found through /proc on Linux and
 * through lsof (the macOS way, which works here too when lsof is installed).
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findPortHolder } from '../../host/cli/port-holder.js';

async function listen(host: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const lsof = spawnSync('sh', ['-c', 'command -v lsof']).status === 0;

describe('findPortHolder', () => {
  it('finds this process listening on IPv4 and IPv6 through /proc', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip('/proc/net/tcp is Linux only');
    for (const host of ['127.0.0.1', '::1']) {
      const server = await listen(host);
      try {
        const holder = await findPortHolder(server.port, 'linux');
        expect(holder?.pid).toBe(process.pid);
        expect(holder?.command).toContain(process.execPath);
      } finally {
        await server.close();
      }
      // Closed: nobody holds it.
      expect(await findPortHolder(server.port, 'linux')).toBeNull();
    }
  });

  it('finds it through lsof and ps, as on macOS', async (ctx) => {
    if (!lsof) ctx.skip('lsof is not installed here');
    const server = await listen('127.0.0.1');
    try {
      const holder = await findPortHolder(server.port, 'darwin');
      expect(holder?.pid).toBe(process.pid);
      expect(holder?.command).toContain(process.execPath);
    } finally {
      await server.close();
    }
    expect(await findPortHolder(server.port, 'darwin')).toBeNull();
  });
});
