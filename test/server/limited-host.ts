/**
 * The real host in this process (`startHost`, as `tether start` runs it) with the
 * channel, HTTP and log bounds a test passes, so limits can be short and tests fast.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { z } from 'zod';
import { tempDir } from '../support/temp-dir.js';
import { startHost, type RunningHost, type StartHostOptions } from '../../host/cli/start-host.js';

export interface LimitedHost {
  host: RunningHost;
  dataDir: string;
  /** `ws://127.0.0.1:PORT/v1/ws`. */
  wsUrl: string;
  pairLink(): Promise<string>;
  /** Stops the host and removes its folders. */
  dispose(): Promise<void>;
  /** {@link LimitedHost.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const AdminFile = z.object({ url: z.string(), token: z.string() });

export async function startLimitedHost(
  options: StartHostOptions,
  logLevel: 'info' | 'warn' = 'warn',
): Promise<LimitedHost> {
  const temp = tempDir('tether-limited-');
  const root = temp.path;
  const dataDir = join(root, 'data');
  mkdirSync(join(root, 'ws'));
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = logLevel;
  const host = await startHost(
    ['--data', dataDir, '--port', '0', '--workspace', join(root, 'ws')],
    () => undefined,
    options,
  );
  const dispose = async () => {
    await host.stop();
    temp.remove();
  };
  return {
    host,
    dataDir,
    wsUrl: host.url.replace(/^http/, 'ws') + '/v1/ws',
    async pairLink() {
      const file = AdminFile.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
      const response = await fetch(`${file.url}/admin/api/offers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${file.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return z.object({ link: z.string() }).parse(await response.json()).link;
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/** How a socket that sent `frame` as soon as it opened ended: its first frame, close code, when. */
export interface Ending {
  /** The first frame, parsed, if it was text. */
  first: unknown;
  code: number;
  /** Milliseconds from the upgrade to the close. */
  closedAfterMs: number;
}

/**
 * Opens a socket to `url` (as from `address`, through X-Forwarded-For, which the host
 * believes from a loopback peer), sends `frame` at once unless null, and waits for the close.
 */
export function sendAndWait(url: string, frame: unknown, address?: string): Promise<Ending> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      ...(address === undefined ? {} : { headers: { 'x-forwarded-for': address } }),
    });
    let first: unknown;
    let openedAt = 0;
    socket.once('open', () => {
      openedAt = Date.now();
      if (frame !== null) socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (first === undefined) first = isBinary ? data : (JSON.parse(data.toString()) as unknown);
    });
    socket.once('close', (code) => resolve({ first, code, closedAfterMs: Date.now() - openedAt }));
    socket.once('error', reject);
  });
}
